// Hand-written SQL: the hours report (dayparting) with ClickHouse as the store, from the hourly
// rollups of one kept zone (migrations/0008-hourly-rollups.sql.ts): the range's figures by local
// weekday and hour, all 168 cells with zeros where nothing happened, in one query with the zone's
// hours_since beside each cell. Scope and filters are the Postgres read's
// (store/postgres/hours-report.sql.ts): the caller's advertiser and publishers, and the route's
// advertiser, publisher and campaign ids. Sums add up over any rows; distinct orders are
// uniqExactMerge of the cells' states, exact whatever the cell spans (campaigns, publishers,
// advertisers, days), where Postgres picks a table of the grain for them.
// Column names and conditions are fixed text; every value is a parameter.
import { INVALID_TRAFFIC_REASONS } from "@/server/core/event-status";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { HOURLY_ORDER_STATES } from "./migrations/0008-hourly-rollups.sql";

/** The figures of a cell as hourly_rollups sums them, named as TotalsRow's. */
const CELL_SUMS = [
  "sum(r.impressions) AS impressions",
  "sum(r.views) AS views",
  "sum(r.clicks) AS clicks",
  "sum(r.spend_micros) AS spend_micros",
  "sum(r.duplicate_events) AS duplicate_events",
  "sum(r.bot_events) AS bot_events",
  `${INVALID_TRAFFIC_REASONS.map((reason) => `sum(r.${reason}_events)`).join(" + ")} AS invalid_events`,
  "sum(r.sales_revenue_micros) AS sales_revenue_micros",
  "sum(r.unverified_sales_revenue_micros) AS unverified_sales_revenue_micros",
  "sum(r.uncredited_sales_revenue_micros) AS uncredited_sales_revenue_micros",
  "sum(r.sales_revenue_click_micros) AS sales_revenue_click_micros",
  "sum(r.units_sold_micros) AS units_sold_micros",
  "sum(r.halo_sales_revenue_micros) AS halo_sales_revenue_micros",
  "sum(r.ntb_sales_revenue_micros) AS ntb_sales_revenue_micros",
];
const CELL_ORDERS = HOURLY_ORDER_STATES.map((state) => `uniqExactMerge(r.${state}) AS ${state}`);

/** Every figure a cell answers, as its name in the result. */
export const CELL_FIGURES = [...CELL_SUMS, ...CELL_ORDERS].map((selected) => selected.replace(/^.* AS /, ""));

/** A cell's weekday (0 = Sunday, as Postgres's extract(dow)) and hour, of a row as `r`. */
const CELL = "toDayOfWeek(r.day, 2) AS weekday, r.hour AS hour";

export interface HoursStatement {
  query: string;
  params: Record<string, unknown>;
}

/** The conditions of the cells' rows: the zone, the range's local days, the scope, the route's ids. */
function conditionsOf(scope: ReportScope, query: ReportQuery<string>, zone: string): HoursStatement {
  const params: Record<string, unknown> = { zone, startDate: query.startDate, endDate: query.endDate };
  const conditions = ["r.zone = {zone:String}", "r.day BETWEEN {startDate:Date} AND {endDate:Date}"];
  const narrowed: [string, string, string | readonly string[] | null | undefined][] = [
    ["scopeAdvertiser", "advertiser_id", scope.advertiserId],
    ["scopePublishers", "publisher_id", scope.publisherIds],
    ["advertiser", "advertiser_id", query.ids.advertiser_id],
    ["publisher", "publisher_id", query.ids.publisher_id],
    ["campaign", "campaign_id", query.ids.campaign_id],
  ];
  for (const [name, column, value] of narrowed) {
    if (value === null || value === undefined) continue;
    conditions.push(typeof value === "string" ? `r.${column} = {${name}:String}` : `r.${column} IN {${name}:Array(String)}`);
    params[name] = value;
  }
  return { query: conditions.join(" AND "), params };
}

/**
 * The 168 cells of the range in `zone` (weekday then hour), each with `kept` (whether the zone's
 * hours are kept: 0 rows of `reportZones` for it otherwise) and `hours_since`, the zone's latest.
 * `reportZones` is this node's report_zones, which its views count by.
 */
export function hoursStatement(scope: ReportScope, query: ReportQuery<string>, zone: string, reportZones: string): HoursStatement {
  const where = conditionsOf(scope, query, zone);
  const cells = (table: string, selected: readonly string[]) =>
    `SELECT ${CELL}, ${selected.join(", ")} FROM ${table} AS r WHERE ${where.query} GROUP BY weekday, hour`;
  return {
    query: `SELECT c.weekday AS weekday, c.hour AS hour, ${CELL_FIGURES.join(", ")}, z.kept AS kept, z.hours_since AS hours_since
       FROM (SELECT toUInt8(intDiv(number, 24)) AS weekday, toUInt8(number % 24) AS hour FROM numbers(168)) AS c
       LEFT JOIN (${cells("hourly_rollups", CELL_SUMS)}) AS sums USING (weekday, hour)
       LEFT JOIN (${cells("hourly_order_rollups", CELL_ORDERS)}) AS orders USING (weekday, hour)
      CROSS JOIN (SELECT count() AS kept, max(hours_since) AS hours_since FROM ${reportZones} FINAL WHERE zone = {zone:String}) AS z
      ORDER BY weekday, hour`,
    params: where.params,
  };
}
