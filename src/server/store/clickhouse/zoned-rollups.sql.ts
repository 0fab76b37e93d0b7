// Hand-written SQL: what ClickHouse keeps of each kept zone other than UTC (report_zones), as
// Postgres's report tables keep every zone (docs/decisions/0051): zoned_report_rollups and
// zoned_order_rollups hold report_rollups' and order_rollups' figures with `zone` first in the key
// and `day` the local date in that zone, for the events and lines at or after the zone's `since`
// (a UTC midnight). UTC keeps its own tables, so a UTC read costs what it did.
// Four materialized views keep them, one per view of the UTC tables, and each view's SELECT is
// made here by one function that the backfill (zone-backfill.ch.sql.ts) and the rebuild
// (verify-rollups.ch.sql.ts) call too, with a window of time: what the views count and what the
// backfill or the recount adds cannot differ. A view joins its inserted block to the kept zones as
// their newest versions say (argMax by version): the raw ReplacingMergeTree rows may still hold a
// zone's old versions before merges, and a join to them would count a block once per version.
// The local day is formatDateTime(time, '%F', zone): the one function of chdb's that takes the
// zone from a column and answers per row (toDate(t, zone) and toTimeZone want a constant zone,
// and allow_nonconst_timezone_arguments makes toTimeZone answer UTC silently).
// Migration 11 adds zoned_order_keys, the zones' order keys (order-keys.sql.ts), fed by two views
// of their own; zoned_order_rollups keeps being fed for the days before the keys' first.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import {
  CLICK_CREDIT,
  CLICK_FLAGS,
  CONVERTED_CLICK_LINES,
  HALO_CREDIT,
  LINE_FLAGS,
  NEW_TO_BRAND,
  ORDER_FIGURES,
  ORDER_KEY_LINES,
  SKU,
  SKU_CREDIT,
} from "./order-keys.sql";

/** Columns of the report key other than the day, as in report_rollups and order_rollups. */
export const NOT_DAY_KEY = ["publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name"] as const;

/** report_rollups' figures after migrations 1 to 6, with their types: what zoned_report_rollups keeps too. */
export const REPORT_SUM_COLUMNS: readonly (readonly [string, string])[] = [
  ["impressions", "UInt64"],
  ["views", "UInt64"],
  ["clicks", "UInt64"],
  ["spend_micros", "Int64"],
  ...FILTERED_STATUSES.map(({ column }) => [column, "UInt64"] as const),
  ["attributed_items", "UInt64"],
  ["sales_revenue_micros", "Int128"],
  ["unverified_sales_revenue_micros", "Int128"],
  ["uncredited_sales_revenue_micros", "Int128"],
  ["sales_revenue_click_micros", "Int128"],
  ["units_sold_micros", "Int128"],
  ["halo_sales_revenue_micros", "Int128"],
  ["ntb_sales_revenue_micros", "Int128"],
];

/** order_rollups' states after migrations 2 to 6: what zoned_order_rollups keeps too. */
export const ORDER_STATE_COLUMNS = ORDER_FIGURES;

export const ZONED_TABLES = ["zoned_report_rollups", "zoned_order_rollups", "zoned_order_keys"] as const;
export type ZonedTable = (typeof ZONED_TABLES)[number];
export type UtcRollupTable = "report_rollups" | "order_rollups" | "order_keys";

/** The UTC table whose figures each zoned table keeps per zone. */
export const UTC_TWIN: Record<ZonedTable, UtcRollupTable> = {
  zoned_report_rollups: "report_rollups",
  zoned_order_rollups: "order_rollups",
  zoned_order_keys: "order_keys",
};

/** Every column of a zoned table but `zone`, in order: what a read of the UTC twin selects beside it. */
export const TWIN_COLUMNS: Record<ZonedTable, readonly string[]> = {
  zoned_report_rollups: ["day", ...NOT_DAY_KEY, ...REPORT_SUM_COLUMNS.map(([name]) => name)],
  zoned_order_rollups: ["day", ...NOT_DAY_KEY, ...ORDER_STATE_COLUMNS],
  zoned_order_keys: ["day", ...NOT_DAY_KEY, "id", "flags"],
};

/** One view's counting: from which raw table, by which of its times, what it writes, and which rows. */
export interface ZonedView {
  name: string;
  target: ZonedTable;
  source: "ad_events" | "attributions";
  /** The time that gives the row its local day, and that `since` bounds. */
  time: "created_at" | "placed_at" | "event_created_at";
  figures: readonly string[];
  where?: string;
  /** An order keys view's id (order-keys.sql.ts): a key column beside the report key's. */
  id?: "conversion_id" | "event_id";
}

/** The four views of migration 7, each counting what its UTC twin's view (migrations 1 to 6) counts. */
export const STATE_ZONED_VIEWS: readonly ZonedView[] = [
  {
    name: "ad_events_to_zoned_rollups",
    target: "zoned_report_rollups",
    source: "ad_events",
    time: "created_at",
    figures: [
      "countIf(status = 'counted' AND kind = 'impression') AS impressions",
      "countIf(status = 'counted' AND kind = 'view') AS views",
      "countIf(status = 'counted' AND kind = 'click') AS clicks",
      "sum(spend_micros) AS spend_micros",
      ...FILTERED_STATUSES.map(({ status, column }) => `countIf(status = '${status}') AS ${column}`),
    ],
  },
  {
    name: "attributions_to_zoned_rollups",
    target: "zoned_report_rollups",
    source: "attributions",
    time: "placed_at",
    figures: [
      `countIf(${SKU_CREDIT}) AS attributed_items`,
      `sumIf(toInt128(total_value_micros), ${SKU_CREDIT}) AS sales_revenue_micros`,
      `sumIf(toInt128(total_value_micros), ${SKU} AND NOT verified) AS unverified_sales_revenue_micros`,
      `sumIf(toInt128(total_value_micros), ${SKU} AND NOT credited) AS uncredited_sales_revenue_micros`,
      `sumIf(toInt128(total_value_micros), ${CLICK_CREDIT}) AS sales_revenue_click_micros`,
      `sumIf(toInt128(round(quantity * 1000000)), ${SKU_CREDIT}) AS units_sold_micros`,
      `sumIf(toInt128(total_value_micros), ${HALO_CREDIT}) AS halo_sales_revenue_micros`,
      `sumIf(toInt128(total_value_micros), ${NEW_TO_BRAND}) AS ntb_sales_revenue_micros`,
    ],
  },
  {
    name: "attributions_to_zoned_order_rollups",
    target: "zoned_order_rollups",
    source: "attributions",
    time: "placed_at",
    figures: [
      `uniqExactStateIf(conversion_id, ${SKU_CREDIT}) AS conversions`,
      `uniqExactStateIf(conversion_id, ${SKU} AND NOT verified) AS unverified_conversions`,
      `uniqExactStateIf(conversion_id, ${SKU} AND NOT credited) AS uncredited_conversions`,
      `uniqExactStateIf(conversion_id, ${CLICK_CREDIT}) AS conversions_click`,
      `uniqExactStateIf(conversion_id, ${HALO_CREDIT}) AS halo_conversions`,
      `uniqExactStateIf(conversion_id, ${NEW_TO_BRAND}) AS ntb_conversions`,
    ],
  },
  {
    // A converted click on its own day and row, once (migration 4's attributions_to_converted_clicks).
    name: "attributions_to_zoned_converted_clicks",
    target: "zoned_order_rollups",
    source: "attributions",
    time: "event_created_at",
    figures: ["uniqExactState(event_id) AS converted_clicks"],
    where: CLICK_CREDIT,
  },
];

/** Migration 11's views of the zones' order keys, counting what order_keys' views count. */
export const KEY_ZONED_VIEWS: readonly ZonedView[] = [
  {
    name: "attributions_to_zoned_order_keys",
    target: "zoned_order_keys",
    source: "attributions",
    time: "placed_at",
    id: "conversion_id",
    figures: [`groupBitOr(${LINE_FLAGS}) AS flags`],
    where: ORDER_KEY_LINES,
  },
  {
    name: "attributions_to_zoned_converted_click_keys",
    target: "zoned_order_keys",
    source: "attributions",
    time: "event_created_at",
    id: "event_id",
    figures: [`groupBitOr(${CLICK_FLAGS}) AS flags`],
    where: CONVERTED_CLICK_LINES,
  },
];

/** Every view that feeds the zoned tables now. */
export const ZONED_VIEWS: readonly ZonedView[] = [...STATE_ZONED_VIEWS, ...KEY_ZONED_VIEWS];

/**
 * The kept zones other than UTC, each at its newest version. `reportZones` is the table's name as
 * the statement reads it (report_zones' local table in a view).
 */
export const keptZones = (reportZones: string) => `(SELECT zone, argMax(since, version) AS since FROM ${reportZones} GROUP BY zone HAVING zone != 'UTC')`;

/** The only rows a backfill or a recount counts: a zone, and the UTC moments [from, to) as parameters. */
export const WINDOW = "zone = {zone:String} AND {time} >= {windowFrom:DateTime64(3, 'UTC')} AND {time} < {windowTo:DateTime64(3, 'UTC')}";

/**
 * `view`'s SELECT over the raw rows `source`, joined to `zones` (keptZones): every row at or after
 * its zone's since, on its local day in that zone. With `windowed`, instead, one kept zone's rows
 * in [windowFrom, windowTo) (parameters), whatever its since: the backfill's statement (the days
 * just before since) and the recount's (from since on).
 */
export function zonedRollupQuery(view: ZonedView, source: string, zones: string, windowed = false): string {
  const bound = windowed ? WINDOW.replaceAll("{time}", view.time) : `${view.time} >= since`;
  const conditions = [bound, ...(view.where ? [view.where] : [])];
  const key = [...NOT_DAY_KEY, ...(view.id ? ["id"] : [])].join(", ");
  const id = view.id ? `, ${view.id} AS id` : "";
  return `SELECT zone, toDate(formatDateTime(${view.time}, '%F', zone)) AS day, ${NOT_DAY_KEY.join(", ")}${id},
            ${view.figures.join(",\n            ")}
       FROM ${source} CROSS JOIN ${zones} AS kept
      WHERE ${conditions.join(" AND ")}
      GROUP BY zone, day, ${key}`;
}

/** The columns an insert of `view`'s SELECT names, in its order. */
export const insertColumns = (view: ZonedView) => [
  "zone",
  "day",
  ...NOT_DAY_KEY,
  ...(view.id ? ["id"] : []),
  ...view.figures.map((figure) => figure.split(" AS ").at(-1)!),
];
