// Hand-written SQL: the hours report's rows (dayparting), as Postgres keeps them in
// hourly_campaign_totals and hourly_publisher_orders (store/postgres/rollup-tables.sql.ts): per
// kept zone (report_zones, UTC among them), local day and local hour (0-23), publisher, advertiser
// and campaign, every figure the report shows. Two tables, as the day rollups are split
// (migration 2): hourly_rollups sums traffic, spend and sales; hourly_order_rollups keeps distinct
// orders (and converted clicks) as uniqExact states, so a cell merged over campaigns, publishers
// or days counts each order once, and holds rows only where attributions are: most hours of most
// campaigns are traffic alone, and reads merging empty states were slowed by them.
//
// Materialized views write both from the inserted ad_events and attributions, each row joined to
// every kept zone whose hours it reaches (at or after the zone's hours_since), on its local day
// and hour there: formatDateTime(time, '%F' / '%H', zone) takes the zone from a column and answers
// per row from ClickHouse's tz database (toDate(t, zone) and toTimeZone need a constant zone).
// The kept zones are report_zones' latest version of each zone (argMax), never its raw rows:
// a ReplacingMergeTree holds every version until merges drop the older ones, and a zone seen
// twice would count its events twice. Events on their own time, orders on the time they were
// placed, a converted click on the click's own time, as the day rollups have them.
//
// report_zones is ClickHouse's copy of Postgres's: zones, their `since` (day rows) and
// `hours_since` (these rows), one row per version, made by migration 7 (reportZonesTable; stated
// again here, IF NOT EXISTS, so this migration stands on its own in tests of it). This
// migration makes sure UTC is kept (since 1970), and moves every zone's hours_since to the first
// whole UTC hour at least a minute after it runs, unless it is already later: the views count
// from there, so no hour is counted in part (no history is added: ClickHouse had no hourly rows
// at all, and events before then are in no cell). The move is made only while the first view
// does not exist yet, so a migration run again (cut short, or two processes starting at once)
// never moves hours_since past hours the views have already counted.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import type { Schema } from "../schema";
import { ORDER_STATE_COLUMNS } from "../zoned-rollups.sql";
import { ORDER_VIEW_FIGURES, ROLLUP_VIEW_FIGURES } from "./0005-halo-credit.sql";
import { reportZonesTable } from "./0007-zoned-rollups.sql";

/** The key of both hourly tables (and of the views' GROUP BY). */
export const HOURLY_KEY = "zone, day, hour, publisher_id, advertiser_id, campaign_id";

const NEW_TO_BRAND = "match = 'sku' AND credited AND new_to_brand";
/** A credited SKU line whose credit is a click: the lines whose clicks count as converted. */
export const CLICK_CREDIT = "match = 'sku' AND credited AND event_kind = 'click'";

/** What ad_events add to hourly_rollups: report_rollups' traffic figures (migration 1). */
export const HOURLY_TRAFFIC_FIGURES = [
  "countIf(status = 'counted' AND kind = 'impression') AS impressions",
  "countIf(status = 'counted' AND kind = 'view') AS views",
  "countIf(status = 'counted' AND kind = 'click') AS clicks",
  "sum(spend_micros) AS spend_micros",
  ...FILTERED_STATUSES.map(({ status, column }) => `countIf(status = '${status}') AS ${column}`),
];

/** What attributions add to hourly_rollups: report_rollups' credit sums (migrations 5 and 6). */
export const HOURLY_CREDIT_FIGURES = [...ROLLUP_VIEW_FIGURES, `sumIf(toInt128(total_value_micros), ${NEW_TO_BRAND}) AS ntb_sales_revenue_micros`];

/** What attributions add to hourly_order_rollups: order_rollups' order states (migrations 5 and 6). */
export const HOURLY_ORDER_FIGURES = [...ORDER_VIEW_FIGURES, `uniqExactStateIf(conversion_id, ${NEW_TO_BRAND}) AS ntb_conversions`];

/** Converted clicks, on the click's own hour: each click's event id, once however many orders it leads to. */
export const HOURLY_CONVERTED_CLICKS = ["uniqExactState(event_id) AS converted_clicks"];

/** The kept zones as a relation of (zone, hours_since): each zone's latest version. */
export const keptZoneHours = (reportZones: string) => `(SELECT zone, argMax(hours_since, version) AS hours_since FROM ${reportZones} GROUP BY zone)`;

export interface HourlySource {
  /** The table (or a relation) of raw rows: ad_events or attributions. */
  source: string;
  /** Its time column the rows are placed by. */
  time: "created_at" | "placed_at" | "event_created_at";
  /** The aggregates each row of the key gets (one of the lists above). */
  figures: readonly string[];
  /** A relation of (zone, hours_since): keptZoneHours, or a backfill's own stretch of hours. */
  zones: string;
  /** A condition on the raw rows beside the zones' start (the converted clicks'), or none. */
  where?: string;
}

/**
 * The hourly rows of `source`: each raw row in every zone of `zones` whose hours_since it reaches,
 * on its local day and hour there. The views' query, and a backfill's (another `zones`, `where`).
 */
export function hourlySelect({ source, time, figures, zones, where }: HourlySource): string {
  return `SELECT z.zone AS zone, toDate(formatDateTime(r.${time}, '%F', z.zone)) AS day, toUInt8(formatDateTime(r.${time}, '%H', z.zone)) AS hour,
            r.publisher_id AS publisher_id, r.advertiser_id AS advertiser_id, r.campaign_id AS campaign_id,
            ${figures.join(",\n            ")}
       FROM ${source} AS r CROSS JOIN ${zones} AS z
      WHERE r.${time} >= z.hours_since${where ? ` AND (${where})` : ""}
      GROUP BY ${HOURLY_KEY}`;
}

const SUM_COLUMNS = [
  "impressions SimpleAggregateFunction(sum, UInt64)",
  "views SimpleAggregateFunction(sum, UInt64)",
  "clicks SimpleAggregateFunction(sum, UInt64)",
  "spend_micros SimpleAggregateFunction(sum, Int64)",
  ...FILTERED_STATUSES.map(({ column }) => `${column} SimpleAggregateFunction(sum, UInt64)`),
  "attributed_items SimpleAggregateFunction(sum, UInt64)",
  ...[
    "sales_revenue_micros",
    "unverified_sales_revenue_micros",
    "uncredited_sales_revenue_micros",
    "sales_revenue_click_micros",
    "units_sold_micros",
    "halo_sales_revenue_micros",
    "ntb_sales_revenue_micros",
  ].map((column) => `${column} SimpleAggregateFunction(sum, Int128)`),
];

/** The sums of hourly_rollups, by name (migration 10 makes projections of them). */
export const HOURLY_SUM_COLUMNS: readonly string[] = SUM_COLUMNS.map((column) => column.split(" ")[0]!);

/** The order states of hourly_order_rollups, in the order the read merges them: order_rollups' (and the zoned twin's). */
export const HOURLY_ORDER_STATES = ORDER_STATE_COLUMNS;

const hourlyTable = (s: Schema, name: string, columns: readonly string[]) =>
  `CREATE TABLE IF NOT EXISTS ${s.local(name)}${s.onCluster} (
       zone LowCardinality(String),
       day Date,
       hour UInt8,
       publisher_id LowCardinality(String),
       advertiser_id LowCardinality(String),
       campaign_id String,
       ${columns.join(",\n       ")}
     ) ENGINE = ${s.engine("AggregatingMergeTree", name)}
     PARTITION BY toYYYYMM(day)
     ORDER BY (zone, advertiser_id, day, hour, campaign_id, publisher_id)
     SETTINGS ${s.deduplication}`;

/** The first view this migration makes: while it is missing, no hourly row has been counted. */
const FIRST_VIEW = "ad_events_to_hourly_rollups";

// Over 80 lines on purpose: the migration's statements in the order they are applied, zones first.
export function statements(s: Schema): string[] {
  const zones = s.local("report_zones");
  const events = s.local("ad_events");
  const attributions = s.local("attributions");
  const hourly = s.local("hourly_rollups");
  const orders = s.local("hourly_order_rollups");
  const kept = keptZoneHours(zones);
  return [
    reportZonesTable(s),

    `INSERT INTO ${zones} (zone, since, hours_since, version)
     SELECT 'UTC', toDateTime64(0, 3, 'UTC'), toDateTime64(0, 3, 'UTC'), toUnixTimestamp64Micro(now64(6))
      WHERE (SELECT count() FROM ${zones} WHERE zone = 'UTC') = 0`,

    // A new version of every zone, `since` as it is, hours_since at least the first whole hour a
    // minute or more ahead (a view made at 12:59:59.9 would miss 13:00's first events otherwise),
    // its version above the zone's last.
    `INSERT INTO ${zones} (zone, since, hours_since, version)
     SELECT zone, argMax(since, version),
            greatest(argMax(hours_since, version), toDateTime64(toStartOfHour(now() + INTERVAL 1 MINUTE) + INTERVAL 1 HOUR, 3, 'UTC')),
            greatest(toUInt64(toUnixTimestamp64Micro(now64(6))), max(version) + 1)
       FROM ${zones}
      WHERE (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = '${FIRST_VIEW}') = 0
      GROUP BY zone`,

    hourlyTable(s, "hourly_rollups", SUM_COLUMNS),
    ...s.distributed("hourly_rollups", "cityHash64(advertiser_id)"),
    hourlyTable(
      s,
      "hourly_order_rollups",
      HOURLY_ORDER_STATES.map((state) => `${state} AggregateFunction(uniqExact, UUID)`),
    ),
    ...s.distributed("hourly_order_rollups", "cityHash64(advertiser_id)"),

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${FIRST_VIEW}${s.onCluster} TO ${hourly} AS
     ${hourlySelect({ source: events, time: "created_at", figures: HOURLY_TRAFFIC_FIGURES, zones: kept })}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_to_hourly_rollups${s.onCluster} TO ${hourly} AS
     ${hourlySelect({ source: attributions, time: "placed_at", figures: HOURLY_CREDIT_FIGURES, zones: kept })}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_to_hourly_order_rollups${s.onCluster} TO ${orders} AS
     ${hourlySelect({ source: attributions, time: "placed_at", figures: HOURLY_ORDER_FIGURES, zones: kept })}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_to_hourly_converted_clicks${s.onCluster} TO ${orders} AS
     ${hourlySelect({ source: attributions, time: "event_created_at", figures: HOURLY_CONVERTED_CLICKS, zones: kept, where: CLICK_CREDIT })}`,
  ];
}
