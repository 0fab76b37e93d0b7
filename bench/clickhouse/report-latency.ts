// Report latency with ClickHouse as the store, at `copies` × the report dataset's events stored
// (bench/reports/dataset.ts: 10,000,000 events over 30 days in Postgres; copied into a chdb folder
// and `copies - 1` more times, 30 days further back each: 50,000,000 events over 150 days by
// default), beside the same routes with Postgres as the store on the same database, in one run:
// one `next start` per store, in turn (a chdb folder is opened by one process at a time).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, type LocalPostgres } from "@/cli/local/embedded-postgres";
import { migrateDeploy } from "@/cli/local/prisma-cli";
import { nextServerArgs } from "@/cli/next-server";
import { UTC } from "@/server/core/time-zones";
import { disconnectDb } from "@/server/db/client";
import { BENCH_SIGNING_KEYS } from "../ingest/beacons";
import { ensureProductionBuild, log, runBenchChild, startServer, stopServer } from "../lib/stack";
import { readSeedNote, type SeedNote, startBenchDatabase } from "../reports/database";
import { ZONED_READS } from "../reports/dataset";
import { hoursRoute, reportKeys, reportRoutes, round, timeRequests } from "../reports/timing";

const FOLDER = path.resolve("bench/results/reports-ch");
const NOTE = path.resolve("bench/results/reports-ch.json");

/** What a fill holds beyond the rows: a folder filled before its zones were copied is filled again. */
const FILL_LAYOUT = "kept-zones, every rollup merged, order keys";

interface FillNote {
  /** The Postgres dataset it was copied from (its seededAt). */
  from: string;
  layout?: string;
  copies: number;
  events: number;
  attributions: number;
  rollupRows: number;
  seconds: number;
}

export interface RouteFigures {
  route: string;
  postgres_p95_ms: number;
  clickhouse_p50_ms: number;
  clickhouse_p95_ms: number;
}

export interface ReportFigures {
  postgresEvents: number;
  clickhouseEvents: number;
  range: [string, string];
  health: { postgres_p95_ms: number; clickhouse_p95_ms: number };
  routes: RouteFigures[];
}

async function fill(url: string, seed: SeedNote, copies: number): Promise<FillNote> {
  const existing = existsSync(NOTE) ? (JSON.parse(readFileSync(NOTE, "utf8")) as FillNote) : null;
  if (existing && existing.from === seed.seededAt && existing.copies === copies && existing.layout === FILL_LAYOUT && existsSync(FOLDER)) return existing;
  rmSync(FOLDER, { recursive: true, force: true });
  log(`filling ClickHouse with ${copies} × ${seed.events.toLocaleString("en")} events (bench/results/reports-ch)`);
  const child = await runBenchChild("bench/clickhouse/fill-history.ts", [String(copies)], {
    ...process.env,
    DATABASE_URL: url,
    CLICKHOUSE_URL: `chdb:${FOLDER}`,
    NODE_ENV: "test",
    TALLY_LOG_LEVEL: "warn",
  });
  if (child.status !== 0) throw new Error("filling ClickHouse failed");
  const filled = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Omit<FillNote, "from" | "copies">;
  const note = { from: seed.seededAt, copies, layout: FILL_LAYOUT, ...filled };
  writeFileSync(NOTE, `${JSON.stringify(note, null, 2)}\n`);
  return note;
}

async function timeStore(url: string, clickhouseUrl: string | null, routes: [string, string, string][], requests: number) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATABASE_URL: url,
    BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
    TALLY_SETTLE_INTERVAL_SECONDS: "0",
    TALLY_EXPORT_INTERVAL_SECONDS: "0",
    TALLY_REPORT_RATE_PER_SECOND: "100000",
    ...(clickhouseUrl ? { CLICKHOUSE_URL: clickhouseUrl } : {}),
  };
  const server = await startServer(
    `next start (${clickhouseUrl ? "clickhouse" : "postgres"})`,
    nextServerArgs("start", "--port", String(port)),
    env,
    `${origin}/api/health`,
  );
  try {
    const health = await timeRequests(`${origin}/api/health`, null, requests);
    const timings = [];
    for (const [name, routePath, key] of routes) timings.push({ name, ...(await timeRequests(`${origin}${routePath}`, key, requests)) });
    return { health, timings };
  } finally {
    await stopServer(server);
  }
}

export async function measureReports(options: { requests: number; copies: number }): Promise<ReportFigures> {
  let seed = readSeedNote();
  if (!seed) {
    log("no seeded report database yet: running npm run bench:seed");
    if (spawnSync("npm", ["run", "bench:seed"], { stdio: "inherit" }).status !== 0) throw new Error("npm run bench:seed failed");
    seed = readSeedNote() as SeedNote;
  }
  await ensureProductionBuild();
  let postgres: LocalPostgres | undefined;
  try {
    const database = await startBenchDatabase();
    postgres = database.postgres;
    log(`migrations: ${await migrateDeploy(database.url)}`);
    process.env.DATABASE_URL = database.url;
    const filled = await fill(database.url, seed, options.copies);
    log(
      `ClickHouse holds ${filled.events.toLocaleString("en")} events, ${filled.attributions.toLocaleString("en")} attributions, ${filled.rollupRows.toLocaleString("en")} rollup rows`,
    );
    // Every route in UTC and the hours report, then all of them again in the large advertiser's
    // own zone (its rows from the first seeded day), as bench:reports times them.
    const range = `start_date=${seed.firstDay}&end_date=${seed.lastDay}`;
    const keys = await reportKeys();
    const routes = [UTC, ZONED_READS].flatMap((zone) =>
      [...reportRoutes(range, keys, zone), hoursRoute(range, keys, zone)].map(([name, path, key]): [string, string, string] => [
        zone === UTC ? name : `${name} (${zone})`,
        path,
        key,
      ]),
    );
    const onPostgres = await timeStore(database.url, null, routes, options.requests);
    const onClickhouse = await timeStore(database.url, `chdb:${FOLDER}`, routes, options.requests);
    return {
      postgresEvents: seed.events,
      clickhouseEvents: filled.events,
      range: [seed.firstDay, seed.lastDay],
      health: { postgres_p95_ms: onPostgres.health.p95, clickhouse_p95_ms: onClickhouse.health.p95 },
      routes: onClickhouse.timings.map((timing, index) => ({
        route: timing.name,
        postgres_p95_ms: onPostgres.timings[index]!.p95,
        clickhouse_p50_ms: timing.p50,
        clickhouse_p95_ms: round(timing.p95),
      })),
    };
  } finally {
    // The next phase points this process at another database: let go of this one's clients.
    await disconnectDb();
    await postgres?.stop();
  }
}
