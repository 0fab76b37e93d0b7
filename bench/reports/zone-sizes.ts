// `node --import tsx bench/reports/zone-sizes.ts` after `npm run bench:seed`: what one more kept
// zone costs the report tables (docs/decisions/0051-days-in-each-accounts-time-zone.md). On the
// seeded database (changed: run bench:seed again before bench:reports), with UTC's hours from the
// first seeded day: rows and bytes of each report table with UTC only (after a rebuild), then with
// America/Sao_Paulo kept from the next midnight and moved back over every seeded day by upkeep's
// backfill (timed per zone-day, then checked against a recount), then after a rebuild. Sizes after
// VACUUM FULL, so that the dead rows of the rewrites count in neither.
import { addDays } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { log } from "../lib/stack";
import { readSeedNote, startBenchDatabase } from "./database";

const TABLES = [
  "daily_rollups",
  "daily_campaign_totals",
  "daily_ad_totals",
  "daily_publisher_orders",
  "daily_ad_row_counts",
  "hourly_campaign_totals",
  "hourly_publisher_orders",
];

async function sizes(label: string): Promise<void> {
  await pgPool().query(`VACUUM FULL ${TABLES.join(", ")}`);
  let rows = 0;
  let bytes = 0;
  for (const table of TABLES) {
    const { rows: found } = await pgPool().query<{ zone: string; rows: number }>(
      `SELECT zone, count(*)::int AS rows FROM ${table} GROUP BY zone ORDER BY zone`,
    );
    const { rows: size } = await pgPool().query<{ bytes: string }>(`SELECT pg_total_relation_size('${table}') AS bytes`);
    const count = found.reduce((sum, r) => sum + r.rows, 0);
    rows += count;
    bytes += Number(size[0]!.bytes);
    log(
      `${label}: ${table}: ${found.map((r) => `${r.zone} ${r.rows.toLocaleString("en")}`).join(", ")} rows; ${(Number(size[0]!.bytes) / 1048576).toFixed(1)} MiB`,
    );
  }
  log(`${label}: every report table: ${rows.toLocaleString("en")} rows; ${(bytes / 1048576).toFixed(1)} MiB`);
}

async function main(): Promise<void> {
  const note = readSeedNote();
  if (!note) throw new Error("no seeded database: run npm run bench:seed first");
  const { postgres, url } = await startBenchDatabase();
  process.env.DATABASE_URL = url;
  process.env.DATABASE_BULK_STATEMENT_TIMEOUT_SECONDS = "3600";
  process.env.DATABASE_STATEMENT_TIMEOUT_SECONDS = "3600";
  try {
    const { firstDay, lastDay } = note;
    // A run before may have left another zone: UTC only, as a fresh seed is.
    await pgPool().query("DELETE FROM report_zones WHERE zone <> 'UTC'");
    for (const table of TABLES) await pgPool().query(`DELETE FROM ${table} WHERE zone <> 'UTC'`);
    await pgPool().query(`UPDATE report_zones SET hours_since = '${firstDay}T00:00:00Z' WHERE zone = 'UTC'`);
    let started = Date.now();
    await store().rollups.rebuild(firstDay, lastDay);
    log(`rebuild, UTC only: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await sizes("UTC only");

    const tomorrow = `${addDays(lastDay, 1)}T00:00:00Z`;
    await pgPool().query(`INSERT INTO report_zones (zone, since, hours_since) VALUES ('America/Sao_Paulo', '${tomorrow}', '${tomorrow}')`);
    const steps: number[] = [];
    for (const grain of ["days", "hours"] as const) {
      for (;;) {
        started = Date.now();
        const stretch = await store().rollups.zoneBackfill.step("America/Sao_Paulo", grain, 3_600_000);
        if (!stretch) break;
        steps.push(Date.now() - started);
      }
    }
    steps.sort((a, b) => a - b);
    log(`backfill of America/Sao_Paulo: ${steps.length} zone-days, median ${steps[steps.length >> 1]} ms, longest ${steps.at(-1)} ms`);
    started = Date.now();
    const differences = await store().rollups.verify(firstDay, lastDay);
    log(`verify after backfill: ${differences.length} differences (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    await sizes("UTC and America/Sao_Paulo, backfilled");
    started = Date.now();
    await store().rollups.rebuild(firstDay, lastDay);
    log(`rebuild, UTC and America/Sao_Paulo: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await sizes("UTC and America/Sao_Paulo, rebuilt");
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
