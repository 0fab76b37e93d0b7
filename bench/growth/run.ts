// `npm run bench:growth`: whether accepting and settling cost the same with a long history stored
// as on an empty database. The same backlog (fresh events over the ads of 64 advertisers, as in
// bench:settle) is appended and settled by one worker on the empty database, then again after
// --history events (default 50,000,000, 30 days of the demo's traffic, bench:conversions's
// generator) are loaded into ad_events' day partitions; each rate is printed as a ratio of the
// empty one. Then a settled day of the log and the largest day of ad_events are dropped, timed.
// Each rate is the median of --rounds backlogs (3). Exits non-zero below 0.8, or when a drop takes
// a second or more. Options: -- --history N --events N --rounds N.
import { parseArgs } from "node:util";
import pg from "pg";
import { loadDataset } from "../conversions/dataset";
import { log, startSeededDatabase } from "../lib/stack";
import { appendBacklog, prepareAds, settleWith } from "../settle/traffic";

const { values } = parseArgs({
  options: { history: { type: "string", default: "50000000" }, events: { type: "string", default: "200000" }, rounds: { type: "string", default: "3" } },
});
const HISTORY = Number(values.history);
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);

// Over 80 lines on purpose: the benchmark's steps in the order it runs them, each printing what it measures.
async function main(): Promise<void> {
  const { postgres, url } = await startSeededDatabase("growth");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let failed = false;
  try {
    const { createDayPartitions, dayPartitions } = await import("@/server/upkeep/day-partitions.sql");
    const { dropSettledLogPartitions } = await import("@/server/upkeep/log-retention.sql");
    for (const table of ["beacon_log", "conversion_log"] as const) await createDayPartitions(new Date(), table);
    const ads = await prepareAds(client, 64);

    // Each rate is the median of ROUNDS backlogs, appended and settled one after the other: one
    // backlog's figure moves with whatever else the machine does for those few seconds.
    const measure = async (label: string) => {
      const accept: number[] = [];
      const settle: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        accept.push(await appendBacklog(url, ads, EVENTS, `${label}-${round}`));
        settle.push(await settleWith(client, url, 1, EVENTS));
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const list = (values: number[]) => values.map((v) => v.toLocaleString("en")).join(", ");
      log(`${label}: accept ${list(accept)} events/s, settle ${list(settle)} events/s`);
      return { accept: median(accept), settle: median(settle) };
    };
    const empty = await measure("empty");
    const emptyAccept = empty.accept;
    const emptySettle = empty.settle;
    log(`empty database (medians): accept ${emptyAccept.toLocaleString("en")} events/s, settle ${emptySettle.toLocaleString("en")} events/s`);

    // Loaded without the secondary indexes, which are built afterwards in one pass each: the
    // same end state, in a fraction of the time row-by-row index upkeep takes. (Each is an index of
    // the partitioned table: dropped with its partitions' indexes, made again on every partition.)
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(
      "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'ad_events' AND indexname <> 'ad_events_pkey'",
    );
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const loadStarted = Date.now();
    let lastLine = 0;
    await loadDataset(pool, {
      events: HISTORY,
      orders: 0,
      itemsPerOrder: 1,
      shoppers: Math.max(1, Math.floor(HISTORY / 20)),
      chunk: 1_000_000,
      workers: 2,
      now: new Date(),
      progress: (line) => {
        if (Date.now() - lastLine < 15_000) return;
        lastLine = Date.now();
        log(line);
      },
    });
    await pool.end();
    await client.query("SET maintenance_work_mem = '1GB'");
    for (const index of indexes) {
      const started = Date.now();
      await client.query(index.definition.replace(" ON ONLY ", " ON "));
      log(`index ${index.name} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    await client.query("ANALYZE ad_events");
    const { rows } = await client.query<{ n: string; size: string }>(
      "SELECT count(*)::text AS n, pg_size_pretty((SELECT sum(pg_total_relation_size(inhrelid))::bigint FROM pg_inherits WHERE inhparent = 'ad_events'::regclass)) AS size FROM ad_events",
    );
    log(
      `history: ${Number(rows[0]!.n).toLocaleString("en")} events in ad_events (${rows[0]!.size}), loaded in ${((Date.now() - loadStarted) / 1000).toFixed(0)} s`,
    );

    const full = await measure("history");
    const fullAccept = full.accept;
    const fullSettle = full.settle;
    const acceptRatio = fullAccept / emptyAccept;
    const settleRatio = fullSettle / emptySettle;
    log(
      `with history (medians): accept ${fullAccept.toLocaleString("en")} events/s (${acceptRatio.toFixed(2)} of empty), settle ${fullSettle.toLocaleString("en")} events/s (${settleRatio.toFixed(2)} of empty; target ≥ 0.8)`,
    );
    if (acceptRatio < 0.8 || settleRatio < 0.8) failed = true;

    // Today's partition holds every backlog, all settled: retention as if ten days had passed.
    const today = (await dayPartitions(["beacon_log"])).find((p) => p.table === "beacon_log" && p.day === new Date().toISOString().slice(0, 10));
    const started = Date.now();
    const { dropped } = await dropSettledLogPartitions(new Date(Date.now() + 10 * 86_400_000), 2);
    const dropMs = Date.now() - started;
    log(
      `retention dropped ${dropped.length} partitions, among them today's beacon log (${((today?.bytes ?? 0) / 1e6).toFixed(0)} MB, ${(2 * ROUNDS * EVENTS).toLocaleString("en")} events), in ${dropMs} ms (target < 1,000 ms)`,
    );
    if (dropMs >= 1_000) failed = true;

    // A day of raw history past retention: the largest ad_events partition, dropped whole.
    const { dropPartition } = await import("@/server/upkeep/day-partitions.sql");
    const day = (await dayPartitions(["ad_events"]))
      .filter((p) => p.day !== null && p.day < new Date().toISOString().slice(0, 10))
      .sort((a, b) => b.bytes - a.bytes)[0]!;
    const { rows: dayRows } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${day.name}`);
    const rawStarted = Date.now();
    await dropPartition(day.name);
    const rawDropMs = Date.now() - rawStarted;
    log(
      `dropping ${day.name} (${(day.bytes / 1e6).toFixed(0)} MB, ${Number(dayRows[0]!.n).toLocaleString("en")} events) took ${rawDropMs} ms (target < 1,000 ms)`,
    );
    if (rawDropMs >= 1_000) failed = true;
  } finally {
    await client.end();
    const { disconnectDb } = await import("@/server/db/client");
    await disconnectDb();
    await postgres.stop();
  }
  if (failed) log("MISSED: a target above");
  process.exit(failed ? 1 : 0);
}

await main();
