// The report tables keyed by zone, and every row a zone (or a backfill step's key) holds in them:
// for the tests and benchmarks of kept zones, which compare a zone's rows with a rebuild's.
import { pgPool } from "@/server/db/pg-pool";

export const ZONE_TABLES = [
  "daily_rollups",
  "daily_campaign_totals",
  "daily_ad_totals",
  "daily_publisher_orders",
  "daily_ad_row_counts",
  "hourly_campaign_totals",
  "hourly_advertiser_totals",
  "hourly_publisher_orders",
] as const;

/** Every report row of a zone, as text, in key order, per table. */
export async function rowsOf(zone: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ZONE_TABLES) {
    const { rows } = await pgPool().query<{ row: string }>(`SELECT t::text AS row FROM ${table} t WHERE zone = $1 ORDER BY t::text`, [zone]);
    out[table] = rows.map((r) => r.row);
  }
  return out;
}
