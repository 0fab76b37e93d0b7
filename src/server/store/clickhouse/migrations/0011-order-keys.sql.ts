// Hand-written SQL: distinct orders kept as order keys (order-keys.sql.ts), beside the states of
// order_rollups and zoned_order_rollups, which reads of days before the keys' first still use.
// Order: the tables, then their views (from then on every attribution shipped is counted), then
// the attributions already held counted in; a key counted by both a view and the history is the
// same id with the same bits, which OR and uniqExact take once, so this runs again harmlessly.
// Last, the keys' first day: the day after the oldest that the attributions' TTL may have cut
// into, or 1970 when they have no TTL (every attribution ever shipped is still held).
// order_keys_start, like report_zones, is on every node of a cluster whole (no {shard} in its path).

import type { Schema } from "../schema";
import { KEY_ZONED_VIEWS, keptZones, NOT_DAY_KEY, zonedRollupQuery } from "../zoned-rollups.sql";

const NOT_DAY = NOT_DAY_KEY.join(", ");
const KEY_COLUMNS = NOT_DAY_KEY.map((column) => `${column} ${column === "campaign_id" || column === "ad_id" ? "String" : "LowCardinality(String)"}`);

/**
 * The UTC views: each zoned view's counting (KEY_ZONED_VIEWS: each order's lines on the order's
 * day, each converted click on its own) on the UTC day, over the attributions `source`, narrowed
 * by `where` too when given (the rebuild's days).
 */
export const UTC_KEY_VIEWS = KEY_ZONED_VIEWS.map(({ name, time, id, figures, where: lines }) => ({
  name: name.replace("_zoned", ""),
  time,
  select: (source: string, where?: string) => `SELECT toDate(${time}) AS day, ${NOT_DAY}, ${id} AS id, ${figures.join(", ")}
       FROM ${source}
      WHERE ${lines}${where ? ` AND ${where}` : ""}
      GROUP BY day, ${NOT_DAY}, id`,
}));

/** The sorting key of order_keys (zoned_order_keys: `zone` first): report_rollups' and the id. */
export const ORDER_KEYS_ORDER = "advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name, id";

/** The TTL days of the attributions table now (0: none), from its definition, as applyTtl reads it. */
const ATTRIBUTIONS_TTL_DAYS = (s: Schema) => `(SELECT greatest(
     toUInt32OrZero(extract(create_table_query, 'TTL \\\\S+ \\\\+ toIntervalDay\\\\((\\\\d+)\\\\)')),
     toUInt32OrZero(extract(create_table_query, 'TTL \\\\S+ \\\\+ INTERVAL (\\\\d+) DAY')))
   FROM system.tables WHERE database = currentDatabase() AND name = '${s.local("attributions")}')`;

export function statements(s: Schema): string[] {
  const start = s.local("order_keys_start");
  const startEngine = s.onCluster
    ? `ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/${start}', '{replica}', version)`
    : "ReplacingMergeTree(version)";
  const table = (name: string, zoned: boolean) => [
    `CREATE TABLE IF NOT EXISTS ${s.local(name)}${s.onCluster} (
       ${zoned ? "zone LowCardinality(String),\n       " : ""}day Date,
       ${KEY_COLUMNS.join(",\n       ")},
       id UUID,
       flags SimpleAggregateFunction(groupBitOr, UInt8)
     ) ENGINE = ${s.engine("AggregatingMergeTree", name)}
     PARTITION BY toYYYYMM(day)
     ORDER BY (${zoned ? "zone, " : ""}${ORDER_KEYS_ORDER})
     SETTINGS ${s.deduplication}`,
    ...s.distributed(name, "cityHash64(advertiser_id)"),
  ];
  const zones = keptZones(s.local("report_zones"));
  const ttlDays = ATTRIBUTIONS_TTL_DAYS(s);
  return [
    `CREATE TABLE IF NOT EXISTS ${start}${s.onCluster} (since Date, version UInt64) ENGINE = ${startEngine} ORDER BY tuple()`,
    ...table("order_keys", false),
    ...table("zoned_order_keys", true),
    ...UTC_KEY_VIEWS.map(
      (view) => `CREATE MATERIALIZED VIEW IF NOT EXISTS ${view.name}${s.onCluster} TO ${s.local("order_keys")} AS
     ${view.select(s.local("attributions"))}`,
    ),
    ...KEY_ZONED_VIEWS.map(
      (view) => `CREATE MATERIALIZED VIEW IF NOT EXISTS ${view.name}${s.onCluster} TO ${s.local(view.target)} AS
     ${zonedRollupQuery(view, s.local(view.source), zones)}`,
    ),
    // History, through the Distributed tables on a cluster (every shard filled, written before the statement returns).
    ...UTC_KEY_VIEWS.map(
      (view) => `INSERT INTO order_keys (day, ${NOT_DAY}, id, flags)
     ${view.select("attributions")}
     SETTINGS distributed_foreground_insert = 1, insert_deduplicate = 0`,
    ),
    ...KEY_ZONED_VIEWS.map(
      (view) => `INSERT INTO ${view.target} (zone, day, ${NOT_DAY}, id, flags)
     ${zonedRollupQuery(view, view.source, zones)}
     SETTINGS distributed_foreground_insert = 1, insert_deduplicate = 0`,
    ),
    `INSERT INTO ${start} (since, version)
     SELECT if(${ttlDays} = 0, toDate('1970-01-01'), toDate(now('UTC')) - ${ttlDays} + 1), 1
      WHERE (SELECT count() FROM ${start}) = 0`,
  ];
}
