// `node --import tsx bench/reports/zone-backfill-wait.ts [--days 3]` after `npm run bench:seed`: how
// long the writers wait while upkeep's backfill moves a zone back a day
// (docs/decisions/0051-days-in-each-accounts-time-zone.md). On the seeded database (changed: run
// bench:seed again before bench:reports), America/Sao_Paulo is kept from the next midnight and
// moved back `--days` zone-days of each grain (the daily tables, then the hourly ones), each step
// timed; meanwhile a probe runs the writers' own zone list (ZONES_CTE: every kept zone's row
// share-locked, the point where a settle or attribution batch waits for a step) in a transaction
// of its own, every 5 ms on its own connection, and records how long each took: the longest is
// the longest any writer would have waited. The moved days are then checked against a recount.
import { performance } from "node:perf_hooks";
import { addDays } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { ZONES_CTE } from "@/server/store/postgres/rollup-tables.sql";
import { ZONE_TABLES } from "@/testing/zone-rows";
import { log } from "../lib/stack";
import { readSeedNote, startBenchDatabase } from "./database";

const ZONE = "America/Sao_Paulo";
/** Runs `work` while a probe takes the writers' zone locks again and again; each probe's time in ms. */
async function probed<T>(work: () => Promise<T>): Promise<{ result: T; waits: number[] }> {
  let done = false;
  const waits: number[] = [];
  const client = await pgPool().connect();
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      await client.query("BEGIN");
      await client.query(`WITH ${ZONES_CTE} SELECT count(*) FROM zones`);
      await client.query("COMMIT");
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    return { result: await work(), waits };
  } finally {
    done = true;
    await probe;
    client.release();
  }
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function main(): Promise<void> {
  const note = readSeedNote();
  if (!note) throw new Error("no seeded database: run npm run bench:seed first");
  const days = Number(process.argv[process.argv.indexOf("--days") + 1] ?? 3) || 3;
  const { postgres, url } = await startBenchDatabase();
  process.env.DATABASE_URL = url;
  process.env.DATABASE_BULK_STATEMENT_TIMEOUT_SECONDS = "3600";
  process.env.DATABASE_STATEMENT_TIMEOUT_SECONDS = "3600";
  try {
    const { lastDay } = note;
    // A run before may have left the zone, or a step's rows: UTC only, as a fresh seed is.
    await pgPool().query("DELETE FROM report_zones WHERE zone <> 'UTC'");
    for (const table of ZONE_TABLES) await pgPool().query(`DELETE FROM ${table} WHERE zone <> 'UTC'`);
    const tomorrow = `${addDays(lastDay, 1)}T00:00:00Z`;
    await pgPool().query(`INSERT INTO report_zones (zone, since, hours_since) VALUES ('${ZONE}', '${tomorrow}', '${tomorrow}')`);
    const every: number[] = [];
    for (const grain of ["days", "hours"] as const) {
      for (let n = 0; n < days; n++) {
        const started = performance.now();
        const { result: stretch, waits } = await probed(() => store().rollups.zoneBackfill.step(ZONE, grain, 3_600_000));
        const took = performance.now() - started;
        if (!stretch) break;
        waits.sort((a, b) => a - b);
        every.push(...waits);
        log(
          `${grain} ${stretch.from.toISOString().slice(0, 10)}: step ${took.toFixed(0)} ms; writers' lock probes ${waits.length}, median ${quantile(waits, 0.5).toFixed(1)} ms, longest ${(waits.at(-1) ?? 0).toFixed(1)} ms`,
        );
      }
    }
    every.sort((a, b) => a - b);
    log(
      `every probe: ${every.length}, median ${quantile(every, 0.5).toFixed(1)} ms, p99 ${quantile(every, 0.99).toFixed(1)} ms, longest ${(every.at(-1) ?? 0).toFixed(1)} ms`,
    );
    const started = performance.now();
    const differences = await store().rollups.verify(addDays(lastDay, 1 - days), lastDay);
    log(`verify of the moved days: ${differences.length} differences (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } finally {
    await pgPool().end();
    await postgres.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
