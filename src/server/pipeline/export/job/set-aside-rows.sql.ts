// Rows an export left out because their own data could not be read or written (poison.ts): kept
// on their runs with the reason, and listed here for operators (`npm run rollups:verify`) beside
// the orders attribution set aside, so nothing is silently missing from a customer's bucket.
// Hand-written SQL.
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import type { SetAsideRow } from "./poison";

export interface SetAsideExportRows {
  run_id: string;
  destination_id: string;
  account_id: string;
  type: string;
  started_at: Date;
  rows: SetAsideRow[];
}

/** Export runs started in a range of UTC days (inclusive) that set rows aside, latest first, at most `limit`; and how many rows in all. */
export async function setAsideExportRows(
  range: { startDate: string; endDate: string },
  limit = 20,
): Promise<{ totalRows: number; runs: SetAsideExportRows[] }> {
  const { rows } = await pgPool().query<SetAsideExportRows & { total_rows: number }>(
    sql`SELECT r.id AS run_id, r.destination_id, d.account_id, r.type::text AS type, r.started_at, r.set_aside AS rows,
            sum(r.set_aside_rows) OVER ()::int AS total_rows
       FROM export_runs r JOIN export_destinations d ON d.id = r.destination_id
      WHERE r.set_aside_rows > 0 AND r.started_at >= ${range.startDate}::date AND r.started_at < ${range.endDate}::date + 1
      ORDER BY r.started_at DESC
      LIMIT ${limit}`,
  );
  return { totalRows: rows[0]?.total_rows ?? 0, runs: rows.map(({ total_rows: _total, ...run }) => run) };
}
