// One file over 300 lines on purpose: the conversions benchmark's intake, settle and attribution phases share one dataset and one table of figures.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { freePort, type LocalPostgres } from "@/cli/local/embedded-postgres";
import { BENCH_SIGNING_KEYS } from "../ingest/beacons";
import { BENCH_RATE_LIMITS, type LoadResult, log, startDatabase, startServer, stopServer, WARM_UP_SECONDS, warmThenLoad } from "../lib/stack";
import { attribution } from "./attribution";
import { df, diskAtStart, diskUsed, gb } from "./disk";
import { conversionBody, ITEMS_PER_ORDER, ORDER_PREFIX } from "./orders";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    connections: { type: "string", default: "64" },
    events: { type: "string", default: "10000000" },
    orders: { type: "string", default: "100000" },
    "skip-intake": { type: "boolean", default: false },
    "skip-attribution": { type: "boolean", default: false },
    explain: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const EVENTS = Number(values.events);
const ORDERS = Number(values.orders);
const SHOPPERS = Math.max(1, Math.round(EVENTS / 10));

const TARGET = { intakeRatio: 0.3, ordersPerSecond: 100_000 / 60 };

// ------------------------------------------------------------------------------ disk and cleanup

let diskPeak = diskAtStart;
const diskSampler = setInterval(() => {
  diskPeak = Math.max(diskPeak, diskUsed());
}, 1_000);
diskSampler.unref();

// startDatabase puts the cluster in os.tmpdir()/tally-bench-conversions-<pid>-...; whatever
// happens, it is stopped and that directory removed.
const DATA_DIR_PREFIX = `tally-bench-conversions-${process.pid}-`;
let database: { postgres: LocalPostgres; url: string } | undefined;
let stopping: Promise<void> | undefined;

const dataDirs = () =>
  readdirSync(os.tmpdir())
    .filter((name) => name.startsWith(DATA_DIR_PREFIX))
    .map((name) => path.join(os.tmpdir(), name));

/**
 * Stops the throwaway Postgres and removes its directory. `immediate` (on a signal) first sends
 * the postmaster SIGQUIT, by the pid in its postmaster.pid: a fast shutdown checkpoints first,
 * which after the 10M-row load can outlast the 10 s embedded-postgres allows itself on a signal.
 */
function cleanUp(immediate = false): Promise<void> {
  stopping ??= (async () => {
    if (immediate) {
      for (const dir of dataDirs()) {
        try {
          process.kill(Number(readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]), "SIGQUIT");
        } catch {
          // not running
        }
      }
    }
    try {
      await database?.postgres.stop();
    } catch (error) {
      console.error("bench: stopping Postgres failed:", error);
    }
    for (const dir of dataDirs()) rmSync(dir, { recursive: true, force: true });
    const left = dataDirs();
    log(left.length === 0 ? "throwaway database stopped and removed" : `could not remove ${left.join(", ")}`);
  })();
  return stopping;
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp(true).finally(() => process.exit(130));
  });
}
for (const event of ["uncaughtException", "unhandledRejection"] as const) {
  process.on(event, (error) => {
    console.error(error);
    void cleanUp(true).finally(() => process.exit(1));
  });
}

// ------------------------------------------------------------------------------ part 1: intake

/**
 * The orders of the intake runs, built before the run: no request of a run builds one, since the
 * load generator shares the machine's two cores with the server, and a server that answers faster
 * would get more of its requests built during its run. The bare server, to which an order's
 * content means nothing, starts the pool over when it runs out; the collector must not (an order
 * sent again is a repeat, cheaper to accept than a new one), so the pool holds more orders than it
 * answers in a run, and the intake fails if it ran out.
 */
function orderStream(pool: { path: string; body: string; id: string }[]) {
  let n = 0;
  const next = () => pool[n++ % pool.length]!;
  return Object.assign(next, { sent: () => n });
}

/** Orders built per second of load (warm-up included): more than the collector takes on this machine. */
const ORDERS_PER_SECOND_OF_POOL = 20_000;

interface IntakeFigures {
  bare: LoadResult;
  collector: LoadResult;
  ratio: number;
  stored: number;
  lost: number;
  extra: number;
  unanswered: number;
  /** Orders sent to the collector past the pool, that is, sent again (must be 0). */
  repeated: number;
}

// Over 80 lines on purpose: the benchmark's steps in the order it runs them, each printing what it measures.
async function intake(url: string): Promise<IntakeFigures> {
  const env = { DATABASE_URL: url, BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS, NEXT_TELEMETRY_DISABLED: "1", DATABASE_POOL_SIZE: "10", ...BENCH_RATE_LIMITS };
  const options = { connections, seconds };

  // The bare server is sent the very orders the collector is (docs/decisions/0018-benchmark-baselines.md).
  const createdAt = new Date().toISOString();
  const pool = Array.from({ length: (seconds + WARM_UP_SECONDS) * ORDERS_PER_SECOND_OF_POOL }, (_, n) => ({
    path: "/v1/beacon/conversion",
    body: conversionBody(n, createdAt),
    id: `${ORDER_PREFIX}-${n}`,
  }));
  const barePort = await freePort();
  const bare = await startServer("bare node:http", ["--import", "tsx", "bench/ingest/bare-server.ts", String(barePort)], {}, `http://127.0.0.1:${barePort}/`);
  const bareRun = await warmThenLoad("bare node:http", `http://127.0.0.1:${barePort}`, orderStream(pool), options);
  await stopServer(bare);

  const collectorPort = await freePort();
  const collector = await startServer(
    "collector",
    ["--import", "tsx", "src/collector/server.ts", String(collectorPort)],
    { ...env, NODE_ENV: "production" },
    `http://127.0.0.1:${collectorPort}/v1/ads`,
  );
  const collectorOrders = orderStream(pool);
  const collectorRun = await warmThenLoad("collector conversion route", `http://127.0.0.1:${collectorPort}`, collectorOrders, options);
  await stopServer(collector);

  // An order sent again is checked once: stored once, with its lines.
  const acceptedOrders = [...new Set(collectorRun.acceptedIds)];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // 202 means stored: every accepted order is in the log of accepted orders at once.
    const unlogged = Number(
      (
        await client.query(
          `SELECT count(*) FROM unnest($1::text[]) AS s(order_id)
            WHERE NOT EXISTS (SELECT 1 FROM conversion_log l WHERE l.conversion->>'order_id' = s.order_id)`,
          [acceptedOrders],
        )
      ).rows[0].count,
    );
    // The collector runs as a web tier beside workers would (no settle loop): the log is settled
    // here, in-process, so every accepted order is also checked as stored with its lines.
    const { settlePending } = await import("@/server/pipeline/settle/settle-pending");
    const { oldestUnsettled } = await import("@/server/pipeline/settle/settled-horizon.sql");
    const settleStarted = Date.now();
    let settledOrders = 0;
    for (;;) {
      const done = await settlePending();
      settledOrders += done.orders;
      if ((await oldestUnsettled()) === null) break;
      if (done.orders === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    log(
      `settled ${settledOrders.toLocaleString("en")} accepted orders in ${((Date.now() - settleStarted) / 1000).toFixed(1)} s after the load; ${unlogged} answered 202 without a log row`,
    );
    // Lost: answered 202 but not logged, or not stored without its 5 lines once settled.
    const lost = Number(
      (
        await client.query(
          `SELECT count(*) FROM unnest($1::text[]) AS s(order_id)
        WHERE (SELECT sum(jsonb_array_length(c.items)) FROM conversions c
                WHERE c.publisher_id = 'pub_demo_market' AND c.order_id = s.order_id) IS DISTINCT FROM $2`,
          [acceptedOrders, ITEMS_PER_ORDER],
        )
      ).rows[0].count,
    );
    // Extra: an order stored more than once (an order sent again must be de-duplicated).
    const {
      rows: [totals],
    } = await client.query(
      `SELECT count(*)::int AS stored, (count(*) - count(DISTINCT order_id))::int AS extra
         FROM conversions WHERE order_id LIKE $1`,
      [`${ORDER_PREFIX}-%`],
    );
    // Stored but never answered: requests still in flight when the load generator stopped.
    const unanswered = Number(
      (
        await client.query(`SELECT count(*) FROM conversions c WHERE c.order_id LIKE $2 AND c.order_id <> ALL($1::text[])`, [
          acceptedOrders,
          `${ORDER_PREFIX}-%`,
        ])
      ).rows[0].count,
    );
    return {
      bare: bareRun,
      collector: collectorRun,
      ratio: collectorRun.requestsPerSecond / bareRun.requestsPerSecond,
      stored: totals.stored,
      lost: lost + unlogged,
      extra: totals.extra,
      unanswered,
      repeated: Math.max(0, collectorOrders.sent() - pool.length),
    };
  } finally {
    await client.end();
  }
}

// ------------------------------------------------------------------------------ part 2: attribution

// ------------------------------------------------------------------------------ main

// Over 80 lines on purpose: the benchmark's steps in the order it runs them, each printing what it measures.
async function main(): Promise<number> {
  const wallStarted = Date.now();
  log(`disk before: ${df()}`);
  database = await startDatabase("conversions");
  const { url } = database;
  process.env.DATABASE_URL = url;
  const { seedDemoData } = await import("../../prisma/seed");
  await seedDemoData(() => {});
  const { disconnectDb } = await import("@/server/db/client");
  await disconnectDb();

  const checks: { target: string; value: string; ok: boolean }[] = [];
  const summary: Record<string, unknown> = {};
  try {
    if (!values["skip-intake"]) {
      const i = await intake(url);
      summary.intake = {
        seconds,
        connections,
        bare: { ...i.bare, acceptedIds: undefined },
        collector: { ...i.collector, acceptedIds: undefined },
        ratio: Number(i.ratio.toFixed(3)),
        stored: i.stored,
        lost: i.lost,
        extra: i.extra,
        storedUnanswered: i.unanswered,
        repeated: i.repeated,
      };
      if (i.collector.other + i.collector.errors > 0)
        log(`WARN the collector answered ${i.collector.other} non-2xx and had ${i.collector.errors} errors/timeouts`);
      log(
        `intake: collector ${i.collector.requestsPerSecond} req/s (p50 ${i.collector.p50} ms, p99 ${i.collector.p99} ms) vs bare ${i.bare.requestsPerSecond} req/s (p50 ${i.bare.p50} ms, p99 ${i.bare.p99} ms): ratio ${i.ratio.toFixed(2)}`,
      );
      log(
        `intake: ${i.collector.accepted} answered 202 in the measured run, ${i.stored} stored (${i.unanswered} still in flight at the end, stored unanswered), lost ${i.lost}, extra ${i.extra}`,
      );
      checks.push(
        { target: `collector conversions ≥ ${TARGET.intakeRatio} × bare node:http`, value: i.ratio.toFixed(2), ok: i.ratio >= TARGET.intakeRatio },
        { target: "no accepted order lost (202 without the order and its 5 lines)", value: String(i.lost), ok: i.lost === 0 && i.collector.accepted > 0 },
        { target: "no order stored twice", value: String(i.extra), ok: i.extra === 0 },
        // A repeat costs the intake less than a new order (no log row): the collector's rate counts new orders only.
        { target: "every order sent to the collector a new one", value: `${i.repeated} repeats`, ok: i.repeated === 0 },
        // Every order of the load is valid: an answer other than 202 (a 429 of a limit, a 503) is a miss too.
        {
          target: "every order answered 202, no connection errors (the bare server's too)",
          value: `${i.collector.other} other, ${i.collector.errors} errors / bare ${i.bare.other} other, ${i.bare.errors} errors`,
          ok: i.collector.other === 0 && i.collector.errors === 0 && i.bare.other === 0 && i.bare.errors === 0,
        },
      );
    }
    if (!values["skip-attribution"]) {
      const a = await attribution(url, { events: EVENTS, orders: ORDERS, shoppers: SHOPPERS }, values.explain === true);
      summary.attribution = {
        events: EVENTS,
        shoppers: SHOPPERS,
        ...a,
        seconds: Number(a.seconds.toFixed(2)),
        ordersPerSecond: Math.round(a.ordersPerSecond),
        loadSeconds: Math.round(a.loadSeconds),
      };
      log(
        `attribution: ${a.orders.toLocaleString("en")} orders in ${a.seconds.toFixed(1)} s = ${Math.round(a.ordersPerSecond).toLocaleString("en")} orders/s; ${a.items.toLocaleString("en")} of ${(a.orders * 5).toLocaleString("en")} items attributed (${a.attributedOrders.toLocaleString("en")} orders with one or more)`,
      );
      log(
        `attribution: ${a.pending} orders left in the queue, ${a.attributions} attributions for ${a.distinctItems} distinct items, ${a.invalid} breaking the rules, ${a.missed} lines missed`,
      );
      checks.push(
        {
          target: `${ORDERS.toLocaleString("en")} orders over ${EVENTS.toLocaleString("en")} events at ≥ ${Math.round(TARGET.ordersPerSecond)} orders/s (100k < 60 s)`,
          value: `${a.seconds.toFixed(1)} s, ${Math.round(a.ordersPerSecond)} orders/s`,
          ok: a.orders >= ORDERS && a.ordersPerSecond >= TARGET.ordersPerSecond,
        },
        {
          target: "queue empty, items attributed, each item at most once",
          value: `${a.pending} left, ${a.items} items, ${a.attributions} rows / ${a.distinctItems} items`,
          ok: a.pending === 0 && a.items > 0 && a.attributions === a.distinctItems,
        },
        {
          target: "attributions follow the rules, no qualifying line missed",
          value: `${a.invalid} invalid, ${a.missed} missed`,
          ok: a.invalid === 0 && a.missed === 0,
        },
      );
    }
  } finally {
    await cleanUp();
  }
  summary.wallSeconds = Math.round((Date.now() - wallStarted) / 1000);
  summary.diskPeak = `+${gb(diskPeak - diskAtStart)} over ${gb(diskAtStart)} used at the start`;
  console.log(JSON.stringify(summary, null, 2));
  log(`disk after: ${df()}; peak +${gb(diskPeak - diskAtStart)}`);
  log(`wall time ${summary.wallSeconds} s`);
  for (const check of checks) log(`${check.ok ? "PASS" : "MISS"} ${check.target}: ${check.value}`);
  return checks.every((check) => check.ok) ? 0 : 1;
}

// process.exit with the code, not process.exitCode: embedded-postgres (async-exit-hook) calls
// process.exit(0) on beforeExit, which would turn a missed target into exit status 0.
main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error);
    await cleanUp();
    process.exit(1);
  },
);
