// Hand-written SQL: report rollups in every kept zone (docs/decisions/0051). report_zones is
// ClickHouse's copy of Postgres's list of kept zones (report-zones.ts keeps it in step), a
// ReplacingMergeTree of versions: UTC from 1970 is put in when absent. zoned_report_rollups and
// zoned_order_rollups keep the UTC tables' figures per zone and local day, for the zones other
// than UTC, fed by four views whose queries come from zoned-rollups.sql.ts. No history: a zone
// starts with no rows, and its since (set by the sync) says where its rows begin; earlier days are
// read from the UTC tables until the backfill moves since back.
// On a cluster report_zones is replicated to every node, not sharded (its path has no {shard}):
// each node's views join their blocks to it locally.
import type { Schema } from "../schema";
import { keptZones, NOT_DAY_KEY, ORDER_STATE_COLUMNS, REPORT_SUM_COLUMNS, STATE_ZONED_VIEWS, type ZonedTable, zonedRollupQuery } from "../zoned-rollups.sql";

/** The statement that makes report_zones: the hourly rollups' migration (0008) makes it too, so either may come first. */
export function reportZonesTable(s: Schema): string {
  const table = s.local("report_zones");
  const engine = s.onCluster
    ? `ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/${table}', '{replica}', version)`
    : "ReplacingMergeTree(version)";
  return `CREATE TABLE IF NOT EXISTS ${table}${s.onCluster} (
  zone String, since DateTime64(3, 'UTC'), hours_since DateTime64(3, 'UTC'), version UInt64
) ENGINE = ${engine} ORDER BY zone`;
}

const COLUMNS: Partial<Record<ZonedTable, string[]>> = {
  zoned_report_rollups: REPORT_SUM_COLUMNS.map(([name, type]) => `${name} SimpleAggregateFunction(sum, ${type})`),
  zoned_order_rollups: ORDER_STATE_COLUMNS.map((name) => `${name} AggregateFunction(uniqExact, UUID)`),
};

export function statements(s: Schema): string[] {
  const zones = s.local("report_zones");
  const tables = (Object.keys(COLUMNS) as (keyof typeof COLUMNS)[]).flatMap((name) => [
    `CREATE TABLE IF NOT EXISTS ${s.local(name)}${s.onCluster} (
       zone LowCardinality(String),
       day Date,
       ${NOT_DAY_KEY.map((column) => `${column} ${column === "campaign_id" || column === "ad_id" ? "String" : "LowCardinality(String)"}`).join(",\n       ")},
       ${COLUMNS[name]!.join(",\n       ")}
     ) ENGINE = ${s.engine("AggregatingMergeTree", name)}
     PARTITION BY toYYYYMM(day)
     ORDER BY (zone, advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name)
     SETTINGS ${s.deduplication}`,
    ...s.distributed(name, "cityHash64(advertiser_id)"),
  ]);
  return [
    reportZonesTable(s),
    `INSERT INTO ${zones} (zone, since, hours_since, version)
     SELECT 'UTC', toDateTime64(0, 3, 'UTC'), toDateTime64(0, 3, 'UTC'), 1
      WHERE (SELECT count() FROM ${zones} WHERE zone = 'UTC') = 0`,
    ...tables,
    ...STATE_ZONED_VIEWS.map(
      (view) =>
        `CREATE MATERIALIZED VIEW IF NOT EXISTS ${view.name}${s.onCluster} TO ${s.local(view.target)} AS
     ${zonedRollupQuery(view, s.local(view.source), keptZones(zones))}`,
    ),
  ];
}
