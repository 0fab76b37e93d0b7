// `npm run bench:settle`: how fast accepted beacons are settled (decided, billed, written to
// ad_events and the rollups), by one worker process and by two at once, against the storage
// ceiling: a plain COPY of the same rows into a table without indexes, in the same run on the
// same database. Each run settles its own backlog of fresh events appended to the log beforehand
// (80% impressions, 10% views, 10% clicks; one session in four repeats an impression, a
// duplicate), spread over the ads of 64 advertisers: spend is applied under each advertiser's row
// lock, so traffic of a handful of advertisers would measure that one lock, not the workers.
// Options: -- --events N (per run, default 200,000), --advertisers N (default 64).
// Exits non-zero when anything accepted is not settled, or is settled twice.
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { log, startSeededDatabase } from "../lib/stack";
import { appendBacklog, prepareAds, settleWith } from "./traffic";

const { values } = parseArgs({ options: { events: { type: "string", default: "200000" }, advertisers: { type: "string", default: "64" } } });
const EVENTS = Number(values.events);
const ADVERTISERS = Number(values.advertisers);

async function main(): Promise<void> {
  const { postgres, url } = await startSeededDatabase("settle");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let failed = false;
  try {
    const ads = await prepareAds(client, ADVERTISERS);

    await appendBacklog(url, ads, EVENTS, "one");
    const one = await settleWith(client, url, 1, EVENTS);
    log(`one worker: ${one.toLocaleString("en")} events settled/s`);
    await appendBacklog(url, ads, EVENTS, "two");
    const two = await settleWith(client, url, 2, EVENTS);
    log(`two workers: ${two.toLocaleString("en")} events settled/s (${(two / one).toFixed(2)} of one)`);

    // The storage ceiling: the rows settle wrote, copied back in by COPY, no indexes, no decisions.
    const file = path.join(tmpdir(), `tally-bench-settle-${process.pid}.copy`);
    await client.query(`COPY (SELECT * FROM ad_events WHERE session_id LIKE 'two-%') TO '${file}'`);
    await client.query("CREATE TABLE copy_ceiling (LIKE ad_events)");
    const started = Date.now();
    const copied = (await client.query(`COPY copy_ceiling FROM '${file}'`)).rowCount ?? 0;
    const ceiling = Math.round(copied / ((Date.now() - started) / 1000));
    log(
      `COPY into an unindexed table: ${ceiling.toLocaleString("en")} rows/s (one worker ${(one / ceiling).toFixed(2)}, two ${(two / ceiling).toFixed(2)} of it)`,
    );

    const { rows: checks } = await client.query<{ logged: string; settled: string; cursor_total: string }>(
      `SELECT (SELECT count(*) FROM beacon_log)::text AS logged,
              (SELECT count(*) FROM ad_events WHERE session_id LIKE 'one-%' OR session_id LIKE 'two-%')::text AS settled,
              (SELECT sum(settled_events) FROM settle_cursors)::text AS cursor_total`,
    );
    const check = checks[0]!;
    log(`log ${check.logged} rows, settled ${check.settled}, cursors ${check.cursor_total}`);
    if (check.logged !== check.settled || check.settled !== check.cursor_total) {
      log("MISSED: every logged event must be settled exactly once");
      failed = true;
    }
  } finally {
    await client.end();
    await postgres.stop();
  }
  process.exit(failed ? 1 : 0);
}

await main();
