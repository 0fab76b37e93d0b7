// Hand-written SQL: settled rows read from Postgres in the shape ClickHouse's tables take them
// (JSONEachRow: ids and 64-bit integers as text, times as UTC ISO text), for the shipper (a batch's
// rows) and the backfill (rows settled before ClickHouse). One column list per table, so the two
// cannot send different rows.
import sql, { raw, type Sql } from "sql-template-tag";
import type { ShippedTable } from "@/server/store/shipping";

const utc = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;

const COLUMNS: Record<ShippedTable, string> = {
  ad_events: `event_id::text AS event_id, kind::text AS kind, status::text AS status, session_id, user_id, ad_id, campaign_id, advertiser_id,
     publisher_id, request_id, ad_type::text AS ad_type, ad_size, placement_name, context, site, spend_micros::text AS spend_micros,
     user_agent, client_hash, ${utc("created_at")}, coalesce(clickhouse_batch, 0)::text AS batch_id`,
  attributions: `conversion_id::text AS conversion_id, ${utc("conversion_received_at")}, item_position, publisher_id, order_id, session_id,
     user_id, product_sku, event_id::text AS event_id, event_kind::text AS event_kind, ad_id, campaign_id, advertiser_id, request_id,
     ad_size, ad_type::text AS ad_type, placement_name, context, site, ${utc("event_created_at")}, ${utc("placed_at")},
     price_micros::text AS price_micros, promotional_price_micros::text AS promotional_price_micros, quantity,
     total_value_micros::text AS total_value_micros, verified, credited, ${utc("created_at")}, coalesce(clickhouse_batch, 0)::text AS batch_id`,
};

/** Each table's partition key in Postgres, by which reads are bounded to the partitions that hold the rows. */
export const PARTITION_KEY: Record<ShippedTable, string> = { ad_events: "created_at", attributions: "conversion_received_at" };

/** A row's key in its table: the event id, or the order's id and the line's position. */
export function rowKey(table: ShippedTable, row: Record<string, unknown>): string {
  return table === "ad_events" ? String(row.event_id) : `${String(row.conversion_id)}:${String(row.item_position)}`;
}

/** The rows of outbox batch `batchId`, whose partition keys lie between `firstAt` and `lastAt`. */
export function batchRowsSql(table: ShippedTable, batchId: string, firstAt: Date, lastAt: Date): Sql {
  const key = raw(PARTITION_KEY[table]);
  return sql`SELECT ${raw(COLUMNS[table])} FROM ${raw(table)}
              WHERE clickhouse_batch = ${batchId}::bigint AND ${key} >= ${firstAt} AND ${key} <= ${lastAt}`;
}

/**
 * Rows settled without an outbox batch (before ClickHouse was the store) whose partition key falls
 * in [from, to), in key order: what the backfill copies.
 */
export function unbatchedRowsSql(table: ShippedTable, from: Date, to: Date): Sql {
  const key = raw(PARTITION_KEY[table]);
  const order = raw(table === "ad_events" ? "event_id" : "conversion_id, item_position");
  return sql`SELECT ${raw(COLUMNS[table])} FROM ${raw(table)}
              WHERE clickhouse_batch IS NULL AND ${key} >= ${from} AND ${key} < ${to}
              ORDER BY ${order}`;
}
