// `npm run bench:ingest`: beacon intake under load, each server against its baseline in the same
// run (the load generator shares the machine's two cores with the servers, so only ratios mean
// something). Impression beacons with distinct valid tokens and sessions, 64 connections, each
// route and its baseline in turns, 3 rounds of 10 s (interleavedLoads), the ratio the rounds' median:
//   - Next.js beacon route vs. an empty Next.js route handler answering 202 (same build), whose path
//     has the beacon route's shape (two dynamic segments) and which is sent the same stream of
//     requests: distinct signed tokens as its second segment, the same bodies;
//   - the standalone collector vs. a bare node:http server answering 202, sent that same stream too.
// A baseline sent one short path over and over is cheaper for the load generator (it shares the
// two cores) and for the server's caches than beacons, whose addresses are all distinct: the ratio
// would then charge that difference to the route (docs/decisions/0018-benchmark-baselines.md).
// Then the rows stored are compared with the 202 answers: nothing accepted may be lost.
// Exits non-zero when a target is missed.
import { parseArgs } from "node:util";
import pg from "pg";
import { freePort } from "@/cli/local/embedded-postgres";
import { nextServerArgs } from "@/cli/next-server";
import { BENCH_RATE_LIMITS, ensureProductionBuild, interleavedLoads, type LoadResult, log, startSeededDatabase, startServer, stopServer } from "../lib/stack";
import { BENCH_SIGNING_KEYS, BROWSER_HEADERS, beaconStream } from "./beacons";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "10" }, rounds: { type: "string", default: "3" }, connections: { type: "string", default: "64" } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

// Over 80 lines on purpose: the benchmark's steps in the order it runs them, each printing what it measures.
async function main(): Promise<void> {
  await ensureProductionBuild();
  const { postgres, url } = await startSeededDatabase("ingest");
  const { disconnectDb } = await import("@/server/db/client");
  await disconnectDb();

  const env = {
    DATABASE_URL: url,
    BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
    TALLY_BENCH_ROUTES: "1",
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_POOL_SIZE: "10",
    // The web tier as docs/operations.md runs it beside workers: accepting only. Settling runs
    // after the load, once, so every accepted beacon is also checked as settled.
    TALLY_SETTLE_INTERVAL_SECONDS: "0",
    TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
    TALLY_EXPORT_INTERVAL_SECONDS: "0",
    ...BENCH_RATE_LIMITS,
  };
  const results: Record<string, LoadResult> = {};
  const options = { connections, seconds, rounds, headers: BROWSER_HEADERS };
  try {
    // Both servers of a pair run at once, and are loaded in turns; the one waiting costs nothing.
    const barePort = await freePort();
    const bare = await startServer("bare node:http", ["--import", "tsx", "bench/ingest/bare-server.ts", String(barePort)], {}, `http://127.0.0.1:${barePort}/`);
    const collectorPort = await freePort();
    const collector = await startServer(
      "collector",
      ["--import", "tsx", "src/collector/server.ts", String(collectorPort)],
      { ...env, NODE_ENV: "production" },
      `http://127.0.0.1:${collectorPort}/v1/ads`,
    );
    const collectorPair = await interleavedLoads(
      { name: "bare node:http", origin: `http://127.0.0.1:${barePort}`, next: beaconStream("bare") },
      { name: "collector beacon route", origin: `http://127.0.0.1:${collectorPort}`, next: beaconStream("collector") },
      options,
    );
    results.bareNode = collectorPair.baseline;
    results.collector = collectorPair.route;
    await stopServer(bare);
    await stopServer(collector);

    const nextPort = await freePort();
    const next = await startServer(
      "next start",
      nextServerArgs("start", "--port", String(nextPort)),
      { ...env, NODE_ENV: "production" },
      `http://127.0.0.1:${nextPort}/api/bench/ready/check`,
    );
    const nextOrigin = `http://127.0.0.1:${nextPort}`;
    const nextPair = await interleavedLoads(
      { name: "empty Next.js route handler", origin: nextOrigin, next: beaconStream("empty", "/api/bench/") },
      { name: "Next.js beacon route", origin: nextOrigin, next: beaconStream("next") },
      options,
    );
    results.emptyNext = nextPair.baseline;
    results.nextBeacon = nextPair.route;
    await stopServer(next);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const stored = async (prefix: string) =>
      Number((await client.query("SELECT count(*) FROM beacon_log WHERE session_id LIKE $1", [`${prefix}-%`])).rows[0].count);
    // Every 202 must have its row (each send has its own user_id): in the log at once (202 means
    // stored), and in ad_events once settled.
    const missing = async (ids: string[], table: "beacon_log" | "ad_events") =>
      Number(
        (await client.query(`SELECT count(*) FROM unnest($1::text[]) AS s(id) WHERE NOT EXISTS (SELECT 1 FROM ${table} e WHERE e.user_id = s.id)`, [ids]))
          .rows[0].count,
      );
    const storedNext = await stored("next");
    const storedCollector = await stored("collector");
    const lostNext = await missing(results.nextBeacon!.acceptedIds, "beacon_log");
    const lostCollector = await missing(results.collector!.acceptedIds, "beacon_log");
    const { settlePending } = await import("@/server/pipeline/settle/settle-pending");
    const settleStarted = Date.now();
    let settled = 0;
    for (;;) {
      const done = await settlePending();
      settled += done.events;
      if (done.events === 0 && settled >= storedNext + storedCollector) break;
      if (done.events === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    log(`settled ${settled.toLocaleString("en")} accepted beacons in ${((Date.now() - settleStarted) / 1000).toFixed(1)} s after the load`);
    const unsettled = (await missing(results.nextBeacon!.acceptedIds, "ad_events")) + (await missing(results.collector!.acceptedIds, "ad_events"));
    const counted = Number((await client.query("SELECT count(*) FROM ad_events WHERE status = 'counted'")).rows[0].count);
    await client.end();

    const nextRatio = nextPair.ratio;
    const collectorRatio = collectorPair.ratio;
    const checks = [
      { target: "Next.js beacon route ≥ 0.8 × empty route handler (median of the rounds)", value: nextRatio.toFixed(2), ok: nextRatio >= 0.8 },
      { target: "collector ≥ 0.5 × bare node:http (median of the rounds)", value: collectorRatio.toFixed(2), ok: collectorRatio >= 0.5 },
      { target: "collector p99 < 50 ms (its worst round)", value: `${results.collector!.p99} ms`, ok: results.collector!.p99 < 50 },
      { target: "zero lost events (202 answers without a row in the log)", value: `${lostNext} + ${lostCollector}`, ok: lostNext === 0 && lostCollector === 0 },
      { target: "every accepted event settled into ad_events", value: `${unsettled} missing`, ok: unsettled === 0 },
      // Every beacon of the load is valid: an answer other than 202 (a 429 of a limit, a 503) is a
      // miss too, and so is a reset or a timeout. The baselines must answer every request as well:
      // a baseline answering 404 or dropping connections would be measuring something else.
      {
        target: "every request answered 202, no connection errors",
        value: Object.values(results)
          .map((run) => `${run.other} other, ${run.errors} errors`)
          .join(" / "),
        ok: Object.values(results).every((run) => run.other === 0 && run.errors === 0),
      },
    ];
    const runs = Object.fromEntries(Object.entries(results).map(([key, { acceptedIds, ...run }]) => [key, run]));
    console.log(
      JSON.stringify(
        {
          seconds,
          rounds,
          connections,
          runs,
          ratiosByRound: {
            nextToEmptyRoute: nextPair.ratios.map((r) => Number(r.toFixed(3))),
            collectorToBareNode: collectorPair.ratios.map((r) => Number(r.toFixed(3))),
          },
          stored: { next: storedNext, collector: storedCollector, counted, lostNext, lostCollector, unsettled },
          ratios: { nextToEmptyRoute: Number(nextRatio.toFixed(3)), collectorToBareNode: Number(collectorRatio.toFixed(3)) },
        },
        null,
        2,
      ),
    );
    for (const check of checks) log(`${check.ok ? "PASS" : "MISS"} ${check.target}: ${check.value}`);
    process.exitCode = checks.every((check) => check.ok) ? 0 : 1;
  } finally {
    // This process settled the log itself: its pools go before the database does.
    const { disconnectDb } = await import("@/server/db/client");
    await disconnectDb();
    await postgres.stop();
  }
}

// Exits with process.exitCode explicitly: embedded-postgres (async-exit-hook) calls
// process.exit(0) on beforeExit, which would otherwise turn a missed target into status 0.
main().then(
  () => process.exit(Number(process.exitCode ?? 0)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
