// Retention of what the pipeline set aside: the records of beacons and orders settling set aside
// (settle_set_aside, by a rule or a failure) and the orders attribution set aside (conversions
// with attribution_failed_reason, which have no attributions), and the rows ClickHouse refused
// (clickhouse_set_aside). Operators and publishers read them
// for TALLY_SET_ASIDE_RETENTION_DAYS (docs/operations.md); a source that sends nothing but what is
// set aside cannot make Tally keep it for the raw tables' 90 days. Deleted in chunks, so one
// upkeep run never holds a long transaction however many there are.
import sql, { type Sql } from "sql-template-tag";
import { DAY_MS } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";

const CHUNK = 10_000;

// Fixed texts: the table names are never built from input.
const DELETE_SQL: Record<"records" | "orders" | "refused", (before: Date) => Sql> = {
  records: (before) =>
    sql`DELETE FROM settle_set_aside WHERE event_id IN (SELECT event_id FROM settle_set_aside WHERE set_aside_at < ${before} LIMIT ${CHUNK})`,
  orders: (before) => sql`DELETE FROM conversions WHERE (event_id, received_at) IN (
             SELECT event_id, received_at FROM conversions WHERE attribution_failed_reason IS NOT NULL AND received_at < ${before} LIMIT ${CHUNK})`,
  refused: (before) => sql`DELETE FROM clickhouse_set_aside WHERE (batch_id, row_key) IN (
             SELECT batch_id, row_key FROM clickhouse_set_aside WHERE created_at < ${before} LIMIT ${CHUNK})`,
};

/** Deletes set-aside records and set-aside orders older than `days`; returns how many of each. */
export async function dropExpiredSetAsides(now: Date, days: number): Promise<{ records: number; orders: number; refused: number }> {
  const before = new Date(now.getTime() - days * DAY_MS);
  const deleted = { records: 0, orders: 0, refused: 0 };
  for (const what of ["records", "orders", "refused"] as const) {
    for (;;) {
      const { rowCount } = await pgPool().query(DELETE_SQL[what](before));
      deleted[what] += rowCount ?? 0;
      if ((rowCount ?? 0) < CHUNK) break;
    }
  }
  return deleted;
}
