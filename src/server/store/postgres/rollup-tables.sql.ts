// Hand-written SQL: the tables of report rows that the beacon writer and the attribution writer keep
// in their own transactions (rollup-upserts.sql.ts), and the consistency check recounts (verify-rollups.sql.ts):
// one list, so the three cannot disagree on a table's key. Writers lock them in this order, rows
// in key order, so batches cannot deadlock.
import { INVALID_TRAFFIC_REASONS } from "@/server/core/event-status";

/** daily_rollups' key but for its zone (ClickHouse's rollups, kept in UTC days, have this key). */
export const ROLLUP_KEY = ["day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name"] as const;
export type KeyColumn = (typeof ROLLUP_KEY)[number] | "zone" | "hour";

export interface ReportTableSpec {
  table: "daily_rollups" | "daily_campaign_totals" | "daily_ad_totals" | "hourly_campaign_totals" | "hourly_advertiser_totals";
  keys: readonly KeyColumn[];
  /** Rows per publisher and, with publisher_id '', over every publisher. */
  alsoOverPublishers?: boolean;
  /** The writers count this table's rows in daily_ad_row_counts as they insert them. */
  rowsCounted?: boolean;
}

export const REPORT_TABLES: readonly ReportTableSpec[] = [
  { table: "daily_rollups", keys: ["zone", ...ROLLUP_KEY] },
  { table: "daily_campaign_totals", keys: ["zone", "day", "publisher_id", "advertiser_id", "campaign_id"] },
  { table: "daily_ad_totals", keys: ["zone", "day", "advertiser_id", "campaign_id", "ad_id", "publisher_id"], alsoOverPublishers: true, rowsCounted: true },
  { table: "hourly_campaign_totals", keys: ["zone", "day", "hour", "publisher_id", "advertiser_id", "campaign_id"] },
  // The campaigns' hours summed per advertiser, for the hours reads that span campaigns: a
  // row per publisher an hour instead of one per campaign and publisher, its distinct orders
  // counted per advertiser; and one over every publisher, which an advertiser's own read sums.
  { table: "hourly_advertiser_totals", keys: ["zone", "day", "hour", "publisher_id", "advertiser_id"], alsoOverPublishers: true },
];

/** Whether a table keys its rows by local hour too: its zones' rows start at `hours_since`, not `since`. */
export const isHourly = (spec: { keys: readonly KeyColumn[] }): boolean => spec.keys.includes("hour");

/** The key under which the writers add a stretch of `zone` that upkeep is recounting (zone-backfill.sql.ts); no report reads it. */
export const BACKFILL_KEY_PREFIX = "backfill:";

/**
 * The kept zones, as a CTE named `zones` for the writers' statements, one row per key the batch is
 * added under: `zone` (the rows' key), `tz` (the IANA zone its local days are in) and the moments
 * [since, until) and [hours_since, hours_until) the daily and hourly rows take. Every zone of
 * report_zones, from its starts on, share-locked so that upkeep's change of a zone's row (which
 * locks it for update) never interleaves with a batch that read the old one; and, while upkeep
 * recounts a stretch before a start (backfill_since, backfill_hours_since), that stretch under
 * 'backfill:<zone>'. Zones Postgres's tz database does not know (unknown_report_zones) are left
 * out: converting a time into one fails, and one zone must not stop every batch.
 */
export const ZONES_CTE = `kept_zones AS (
  SELECT zone, since, hours_since, backfill_since, backfill_hours_since FROM report_zones
   WHERE zone NOT IN (SELECT zone FROM unknown_report_zones) FOR SHARE
), zones AS (
  SELECT zone, zone AS tz, since, 'infinity'::timestamptz AS until, hours_since, 'infinity'::timestamptz AS hours_until FROM kept_zones
  UNION ALL
  SELECT '${BACKFILL_KEY_PREFIX}' || zone, zone, coalesce(backfill_since, 'infinity'), since, coalesce(backfill_hours_since, 'infinity'), hours_since
    FROM kept_zones WHERE backfill_since IS NOT NULL OR backfill_hours_since IS NOT NULL
)`;

/**
 * The source rows joined to the zones each one belongs in: `${relation} JOIN zones z` on the
 * time column within the zone's moments (its hours' for an hourly table). Every CTE named `zones`
 * has the columns ZONES_CTE gives.
 */
export const zonedSource = (spec: { keys: readonly KeyColumn[] }, relation: string, timeColumn: string): string =>
  isHourly(spec)
    ? `${relation} JOIN zones z ON ${timeColumn} >= z.hours_since AND ${timeColumn} < z.hours_until`
    : `${relation} JOIN zones z ON ${timeColumn} >= z.since AND ${timeColumn} < z.until`;

/** A local day (or hour) of a time column in the zone joined as `z`. */
export const localDay = (timeColumn: string): string => `(${timeColumn} AT TIME ZONE z.tz)::date`;
export const localHour = (timeColumn: string): string => `extract(hour FROM ${timeColumn} AT TIME ZONE z.tz)::smallint`;

/**
 * The key of a table's rows computed from source rows whose time is `timeColumn`, joined to the
 * zones as `z` (zonedSource): the SELECT list (named as the table's columns) and the GROUP BY
 * clause. A row's day is the local date of the time in its zone, its hour the local hour.
 */
export function reportKeyGrouping(spec: ReportTableSpec, timeColumn: string): { columns: string; groupBy: string } {
  const expression = (key: KeyColumn) => (key === "zone" ? "z.zone" : key === "day" ? localDay(timeColumn) : key === "hour" ? localHour(timeColumn) : key);
  const columns = spec.keys
    .map((key) =>
      key === "publisher_id" && spec.alsoOverPublishers
        ? "CASE WHEN grouping(publisher_id) = 1 THEN '' ELSE publisher_id END AS publisher_id"
        : `${expression(key)} AS ${key}`,
    )
    .join(", ");
  const all = spec.keys.map(expression);
  const groupBy = spec.alsoOverPublishers ? `GROUPING SETS ((${all.filter((e) => e !== "publisher_id").join(", ")}), (${all.join(", ")}))` : all.join(", ");
  return { columns, groupBy };
}

/**
 * The report tables' invalid traffic beyond duplicates and bots, added up for a row of alias
 * `alias`: what reports show as `invalid_events` (the dashboard shows each reason).
 */
export const invalidEventsSum = (alias: string) => INVALID_TRAFFIC_REASONS.map((reason) => `${alias}.${reason}_events`).join(" + ");

/**
 * What attribution adds to a report row, and how a set of credit rows (creditRows: attributed
 * lines, and clicks converted for the first time) sums to it: the writer and the recount share
 * these, so they cannot disagree. Credited lines, orders and sales are what reports call
 * conversions and sales; unverified orders (no proof) are counted whether credited or not, and
 * uncredited ones (unverified, of a publisher that required proof) are the part of those left out
 * of the credit. An order is click-through for a row when a line credited there came from a
 * click; units are counted in millionths, as the quantity each line gave (round(quantity × 10⁶)).
 * A converted click counts on its own row and day, once (converted_clicks), so no row can have
 * more converted clicks than clicks. Halo lines (another SKU of the advertiser) count only in the
 * halo figures, credited orders' alone. New-to-brand orders and sales are those of credited lines
 * marked new_to_brand by the attribution statement.
 */
export const CREDIT_MEASURES = [
  "attributed_items",
  "conversions",
  "sales_revenue_micros",
  "unverified_conversions",
  "unverified_sales_revenue_micros",
  "uncredited_conversions",
  "uncredited_sales_revenue_micros",
  "conversions_click",
  "sales_revenue_click_micros",
  "units_sold_micros",
  "converted_clicks",
  "halo_conversions",
  "halo_sales_revenue_micros",
  "ntb_conversions",
  "ntb_sales_revenue_micros",
] as const;

// A halo line's credit row has null `credited` and `verified` and a converted click's has null
// flags throughout, so only the filters meant for them count them.
export const CREDIT_SUMS = `count(*) FILTER (WHERE credited), count(DISTINCT conversion_id) FILTER (WHERE credited),
         coalesce(sum(total_value_micros) FILTER (WHERE credited), 0),
         count(DISTINCT conversion_id) FILTER (WHERE NOT verified), coalesce(sum(total_value_micros) FILTER (WHERE NOT verified), 0),
         count(DISTINCT conversion_id) FILTER (WHERE NOT credited), coalesce(sum(total_value_micros) FILTER (WHERE NOT credited), 0),
         count(DISTINCT conversion_id) FILTER (WHERE credited AND event_kind = 'click'),
         coalesce(sum(total_value_micros) FILTER (WHERE credited AND event_kind = 'click'), 0),
         coalesce(sum(round(quantity * 1000000)) FILTER (WHERE credited), 0),
         count(*) FILTER (WHERE converted_click),
         count(DISTINCT conversion_id) FILTER (WHERE halo), coalesce(sum(total_value_micros) FILTER (WHERE halo), 0),
         count(DISTINCT conversion_id) FILTER (WHERE credited AND new_to_brand),
         coalesce(sum(total_value_micros) FILTER (WHERE credited AND new_to_brand), 0)`;

/** Of a relation of attributions, the lines that may make a click converted: credited, for the SKU itself, from a click. */
export const CONVERTING_CLICK_LINES = "credited AND match = 'sku' AND event_kind = 'click'";

/**
 * The rows CREDIT_SUMS adds up, at `at` (a report row's day is its UTC day): each attributed line
 * of the relation `lines` on the day its order was placed (a halo line flagged `halo` when its
 * order is credited, and counted in nothing else), and each click among the relation
 * `convertedClickLines` (lines credited to clicks that count as converted) once, on its own day.
 * Relations are SQL text of the callers' own CTEs and tables, never input.
 */
export const creditRows = (lines: string, convertedClickLines: string): string => `
  SELECT placed_at AS at, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
         conversion_id, total_value_micros, quantity,
         CASE WHEN match = 'sku' THEN verified END AS verified, CASE WHEN match = 'sku' THEN credited END AS credited,
         event_kind, false AS converted_click, match = 'halo' AND credited AS halo, new_to_brand
    FROM ${lines}
  UNION ALL
  (SELECT DISTINCT ON (event_id) event_created_at, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
          NULL::uuid, NULL::bigint, NULL::float8, NULL::boolean, NULL::boolean, NULL::"EventKind", true, NULL::boolean, NULL::boolean
     FROM ${convertedClickLines})`;

/** The distinct orders daily_publisher_orders keeps, and how credit rows (of lines, not clicks) count to them. */
export const ORDER_MEASURES = [
  "conversions",
  "unverified_conversions",
  "uncredited_conversions",
  "conversions_click",
  "halo_conversions",
  "ntb_conversions",
] as const;

export const ORDER_COUNTS = `count(DISTINCT conversion_id) FILTER (WHERE credited), count(DISTINCT conversion_id) FILTER (WHERE NOT verified),
         count(DISTINCT conversion_id) FILTER (WHERE NOT credited), count(DISTINCT conversion_id) FILTER (WHERE credited AND event_kind = 'click'),
         count(DISTINCT conversion_id) FILTER (WHERE halo), count(DISTINCT conversion_id) FILTER (WHERE credited AND new_to_brand)`;
