// Hand-written SQL: what the backfill asks ClickHouse: how many backfilled rows (batch 0: settled
// before ClickHouse was the store) each day holds, and which, for a day a run left half done.
// Times are `{name:Int64}` milliseconds; table and column names come from fixed lists.
import type { ShippedTable } from "@/server/store/shipping";
import { EXPIRY_COLUMN } from "./backfill.sql";
import { PARTITION_KEY } from "./postgres-rows.sql";

const millis = (name: string) => `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;

/** Rows of batch 0 per UTC day of the partition key in [{from}, {to}), expiring from {keptFrom} on. */
export const backfilledDays = (table: ShippedTable) =>
  `SELECT toString(toDate(${PARTITION_KEY[table]})) AS day, count() AS n FROM ${table}
    WHERE batch_id = 0 AND ${PARTITION_KEY[table]} >= ${millis("from")} AND ${PARTITION_KEY[table]} < ${millis("to")}
      AND ${EXPIRY_COLUMN[table]} >= ${millis("keptFrom")}
    GROUP BY day`;

/** The keys (postgres-rows.sql.ts's rowKey) of batch 0's rows in [{from}, {to}). */
export const backfilledKeys = (table: ShippedTable) =>
  `SELECT ${table === "ad_events" ? "toString(event_id)" : "concat(toString(conversion_id), ':', toString(item_position))"} AS key FROM ${table}
    WHERE batch_id = 0 AND ${PARTITION_KEY[table]} >= ${millis("from")} AND ${PARTITION_KEY[table]} < ${millis("to")}`;
