// Hand-written SQL: layout B's rows for an advertiser when ClickHouse holds the attributions. Which
// orders were credited to it in a batch's range is ClickHouse's answer (export-reads.ch.sql.ts);
// the orders themselves stay in Postgres and are read here by id, a page of ids at a time, their
// receipt times bounding each read to the partitions that hold them. Bulk reads, on the bulk pool.
import sql from "sql-template-tag";
import { ORDER_COLUMNS } from "@/server/store/postgres/export-batches.sql";

/** Layout B's rows of the orders `ids`, received between `from` and `to`, in the file's order. */
export const ordersOfIds = (ids: readonly string[], from: Date, to: Date) =>
  sql`SELECT ${ORDER_COLUMNS} FROM conversions c
       WHERE c.event_id = ANY(${ids}::uuid[]) AND c.received_at >= ${from} AND c.received_at <= ${to}
       ORDER BY c.received_at, c.event_id`;

/** Which of the orders `ids` (received between `from` and `to`) Postgres holds. */
export const heldOrderIds = (ids: readonly string[], from: Date, to: Date) =>
  sql`SELECT c.event_id::text AS id FROM conversions c
       WHERE c.event_id = ANY(${ids}::uuid[]) AND c.received_at >= ${from} AND c.received_at <= ${to}`;
