// Hand-written SQL: what the ClickHouse backfill asks Postgres (the rows themselves are read with
// postgres-rows.sql.ts's unbatchedRowsSql): how many rows each day holds that were settled before
// ClickHouse was the store (no outbox batch), and where the outbox's batches begin. Table and
// column names come from the fixed lists below, never from input.
import sql, { raw } from "sql-template-tag";
import type { ShippedTable } from "@/server/store/shipping";
import { PARTITION_KEY } from "./postgres-rows.sql";

/** The column whose time ClickHouse's TTL expires a row by. */
export const EXPIRY_COLUMN: Record<ShippedTable, string> = { ad_events: "created_at", attributions: "placed_at" };

/**
 * Rows without an outbox batch per UTC day of their partition key in [from, to), those whose
 * expiry time is before `keptFrom` left out (ClickHouse would drop them).
 */
export function unbatchedDaysSql(table: ShippedTable, from: Date, to: Date, keptFrom: Date) {
  const key = raw(PARTITION_KEY[table]);
  return sql`SELECT to_char((${key} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS rows
               FROM ${raw(table)}
              WHERE clickhouse_batch IS NULL AND ${key} >= ${from} AND ${key} < ${to} AND ${raw(EXPIRY_COLUMN[table])} >= ${keptFrom}
              GROUP BY 1 ORDER BY 1`;
}

/** The earliest partition-key time of the table's outbox batches: ClickHouse became the store about then. */
export const firstBatchedSql = (table: ShippedTable) => sql`SELECT min(first_at) AS first_at FROM clickhouse_batches WHERE kind = ${table}`;
