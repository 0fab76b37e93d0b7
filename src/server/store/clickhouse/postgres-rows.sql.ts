// Hand-written SQL: settled rows read from Postgres in the shape ClickHouse's tables take them
// (ids and 64-bit integers as text, times as UTC text), as arrays in the tables' column order,
// for the shipper (a batch's rows) and the backfill (rows settled before ClickHouse). One column
// list per table, so the two cannot send different rows. Rows travel as TabSeparated text
// (client.ts insertTabSeparated): against JSON objects, a third of the time to build and insert
// (bench/results.md, bench:clickhouse).
import sql, { raw, type Sql } from "sql-template-tag";
import { bigintArrayLiteral, timestampLiteral } from "@/server/db/sql-literals";
import type { ShippedTable } from "@/server/store/shipping";

const utc = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')`;

/** Each ClickHouse column, in order, and the Postgres expression that fills it. */
const COLUMNS: Record<ShippedTable, readonly (readonly [string, string])[]> = {
  ad_events: [
    ["event_id", "event_id::text"],
    ["kind", "kind::text"],
    ["status", "status::text"],
    ["session_id", "session_id"],
    ["user_id", "user_id"],
    ["ad_id", "ad_id"],
    ["campaign_id", "campaign_id"],
    ["advertiser_id", "advertiser_id"],
    ["publisher_id", "publisher_id"],
    ["request_id", "request_id"],
    ["ad_type", "ad_type::text"],
    ["ad_size", "ad_size"],
    ["placement_name", "placement_name"],
    ["context", "context"],
    ["search_term", "search_term"],
    ["category", "category"],
    ["site", "site"],
    ["spend_micros", "spend_micros::text"],
    ["user_agent", "user_agent"],
    ["client_hash", "client_hash"],
    ["created_at", utc("created_at")],
    ["batch_id", "coalesce(clickhouse_batch, 0)::text"],
  ],
  attributions: [
    ["conversion_id", "conversion_id::text"],
    ["conversion_received_at", utc("conversion_received_at")],
    ["item_position", "item_position::text"],
    ["publisher_id", "publisher_id"],
    ["order_id", "order_id"],
    ["session_id", "session_id"],
    ["user_id", "user_id"],
    ["product_sku", "product_sku"],
    ["event_id", "event_id::text"],
    ["event_kind", "event_kind::text"],
    ["ad_id", "ad_id"],
    ["campaign_id", "campaign_id"],
    ["advertiser_id", "advertiser_id"],
    ["request_id", "request_id"],
    ["ad_size", "ad_size"],
    ["ad_type", "ad_type::text"],
    ["placement_name", "placement_name"],
    ["context", "context"],
    ["search_term", "search_term"],
    ["category", "category"],
    ["site", "site"],
    ["event_created_at", utc("event_created_at")],
    ["placed_at", utc("placed_at")],
    ["price_micros", "price_micros::text"],
    ["promotional_price_micros", "promotional_price_micros::text"],
    ["quantity", "quantity::text"],
    ["total_value_micros", "total_value_micros::text"],
    ["verified", "verified::text"],
    ["credited", "credited::text"],
    ["match", "match::text"],
    ["new_to_brand", "new_to_brand::text"],
    ["created_at", utc("created_at")],
    ["batch_id", "coalesce(clickhouse_batch, 0)::text"],
  ],
};

/** The ClickHouse columns of a table's rows, in the order the reads below return them. */
export const columnsOf = (table: ShippedTable): string[] => COLUMNS[table].map(([name]) => name);

const selectList = (table: ShippedTable) => raw(COLUMNS[table].map(([, expression]) => expression).join(", "));

/** A row as the reads return it: text or null, in columnsOf order. */
export type ShippedRow = (string | null)[];

/** Each table's partition key in Postgres, by which reads are bounded to the partitions that hold the rows. */
export const PARTITION_KEY: Record<ShippedTable, string> = { ad_events: "created_at", attributions: "conversion_received_at" };

/** A row's key in its table: the event id, or the order's id and the line's position. */
export function rowKey(table: ShippedTable, row: ShippedRow): string {
  return table === "ad_events" ? row[0]! : `${row[0]!}:${row[2]!}`;
}

/** A row's outbox batch: the last column of either table. */
export const batchOf = (row: ShippedRow): string => row[row.length - 1]!;

/** The rows of outbox batches `batchIds`, whose partition keys lie between `firstAt` and `lastAt`. */
export function batchRowsSql(table: ShippedTable, batchIds: readonly string[], firstAt: Date, lastAt: Date): Sql {
  const key = raw(PARTITION_KEY[table]);
  return sql`SELECT ${selectList(table)} FROM ${raw(table)}
              WHERE clickhouse_batch = ANY(${batchIds}::bigint[]) AND ${key} >= ${firstAt} AND ${key} <= ${lastAt}`;
}

/**
 * The same rows as TabSeparated text, written by Postgres itself (db/copy-out.ts): COPY's text
 * format escapes a value's backslash, tab, line end and carriage return as ClickHouse reads them,
 * and writes null as \N, so the shipper hands the text on as it comes. COPY takes no parameters:
 * the ids and times are checked literals.
 */
export function batchRowsCopySql(table: ShippedTable, batchIds: readonly string[], firstAt: Date, lastAt: Date): Sql {
  const key = raw(PARTITION_KEY[table]);
  return sql`COPY (SELECT ${selectList(table)} FROM ${raw(table)}
                    WHERE clickhouse_batch = ANY(${bigintArrayLiteral(batchIds)})
                      AND ${key} >= ${timestampLiteral(firstAt)} AND ${key} <= ${timestampLiteral(lastAt)}) TO STDOUT`;
}

/**
 * Rows settled without an outbox batch (before ClickHouse was the store) whose partition key falls
 * in [from, to), in key order: what the backfill copies.
 */
export function unbatchedRowsSql(table: ShippedTable, from: Date, to: Date): Sql {
  const key = raw(PARTITION_KEY[table]);
  const order = raw(table === "ad_events" ? "event_id" : "conversion_id, item_position");
  return sql`SELECT ${selectList(table)} FROM ${raw(table)}
              WHERE clickhouse_batch IS NULL AND ${key} >= ${from} AND ${key} < ${to}
              ORDER BY ${order}`;
}
