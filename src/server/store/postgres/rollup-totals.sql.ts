// The totals every report row is built from, as SQL fragments shared by the report queries:
// traffic, spend and sales summed from the report tables, and distinct credited orders from a
// table kept at the row's own grain (distinct counts do not add up across finer rows). With
// ClickHouse as the store these tables stay empty: the same CTEs are then built from figures
// ClickHouse summed, passed in (`given`), so every listing statement serves both stores.
import sql, { empty, join, raw, type Sql } from "sql-template-tag";
import type { TotalsRow } from "@/server/store/metrics";
import type { ReportScope, ZonedRange } from "@/server/store/report-query";
import { PAGE_LIMIT, PAGE_OFFSET } from "./report-runner";
import { zonedDays } from "./report-zone.sql";
import { invalidEventsSum } from "./rollup-tables.sql";

export type TotalsDimension = "advertiser_id" | "publisher_id" | "campaign_id" | "ad_id" | "day";

/** What the totals cover: local days (inclusive) of a zone in the caller's scope, and for the campaign page one campaign. */
export interface TotalsFilter {
  range: ZonedRange;
  scope: ReportScope;
  campaignId?: string;
}

// Where each grain's figures come from. Traffic, credited lines and sales add up over any rows,
// so they are summed from the coarsest report table that has the grain's key and the scope's
// columns: daily_campaign_totals (day, publisher, advertiser, campaign) for every grain above the
// ad, daily_ad_totals (day, advertiser, campaign, ad, and a publisher or '' for all) for ads.
// Distinct orders add up over days and publishers (an order has one of each) but not over
// campaigns or ads, so they come from a table of the grain itself (daily_publisher_orders for
// advertisers, publishers and days across campaigns). Orders count on the day they were placed.
// No report reads raw rows (ad_events, attributions), so reports are unchanged once retention has
// dropped them. Tables and keys are SQL of fixed lists, never input.
interface Source {
  table: "daily_campaign_totals" | "daily_ad_totals";
  key: string;
  /** Where distinct orders come from: the table's own conversions column (exact for the grain), or daily_publisher_orders. */
  orders: "table" | "publisher_orders";
}

function sourceOf(dimension: TotalsDimension, filter: TotalsFilter): Source {
  switch (dimension) {
    case "campaign_id":
      return { table: "daily_campaign_totals", key: "r.campaign_id", orders: "table" };
    case "day":
      // Exact only within one campaign, which is how the campaign page asks for it.
      return {
        table: "daily_campaign_totals",
        key: "r.day",
        orders: filter.campaignId !== undefined ? "table" : "publisher_orders",
      };
    case "advertiser_id":
    case "publisher_id":
      return { table: "daily_campaign_totals", key: `r.${dimension}`, orders: "publisher_orders" };
    case "ad_id":
      // Per publisher rows for a publisher's view, the rows over every publisher otherwise.
      return { table: "daily_ad_totals", key: "r.ad_id", orders: "table" };
  }
}

/**
 * Orders from daily_publisher_orders: per advertiser, its own rows; per publisher or day, the
 * caller's advertiser's rows, or the every-advertiser rows ('') when the caller is not an advertiser.
 */
function publisherOrders(dimension: "advertiser_id" | "publisher_id" | "day", { range, scope }: TotalsFilter): Sql {
  const { advertiserId, publisherIds } = scope;
  const rows =
    dimension === "advertiser_id"
      ? sql`o.advertiser_id <> '' AND (${advertiserId}::text IS NULL OR o.advertiser_id = ${advertiserId})`
      : sql`o.advertiser_id = coalesce(${advertiserId}::text, '')`;
  return sql`SELECT o.${raw(dimension)} AS key, sum(o.conversions) AS conversions, sum(o.unverified_conversions) AS unverified_conversions,
             sum(o.uncredited_conversions) AS uncredited_conversions, sum(o.conversions_click) AS conversions_click,
             sum(o.halo_conversions) AS halo_conversions, sum(o.ntb_conversions) AS ntb_conversions
        FROM daily_publisher_orders o
       WHERE ${zonedDays("o", range)} AND ${rows} AND (${publisherIds}::text[] IS NULL OR o.publisher_id = ANY(${publisherIds}))
       GROUP BY 1`;
}

/** The distinct-order figures: exact only from a table of the row's own grain (the `orders` CTE). */
export const ORDER_FIGURES = [
  "conversions",
  "unverified_conversions",
  "uncredited_conversions",
  "conversions_click",
  "halo_conversions",
  "ntb_conversions",
] as const;
const ORDER_FIGURE_NAMES = raw(ORDER_FIGURES.join(", "));

/** Only the one campaign's rows, when the totals are one campaign's. */
const oneCampaign = (campaignId: string | undefined) => (campaignId !== undefined ? sql`AND r.campaign_id = ${campaignId}` : empty);

/** The figures of a report row, in the order the given-figures arrays are passed. */
export const FIGURES = [
  "impressions",
  "views",
  "clicks",
  "spend_micros",
  "duplicate_events",
  "bot_events",
  "invalid_events",
  "sales_revenue_micros",
  "conversions",
  "unverified_sales_revenue_micros",
  "unverified_conversions",
  "uncredited_sales_revenue_micros",
  "uncredited_conversions",
  "conversions_click",
  "sales_revenue_click_micros",
  "units_sold_micros",
  "converted_clicks",
  "halo_conversions",
  "halo_sales_revenue_micros",
  "ntb_conversions",
  "ntb_sales_revenue_micros",
] as const satisfies readonly (keyof TotalsRow)[];
export type Figure = (typeof FIGURES)[number];

/**
 * A report row's figures summed by another store (ClickHouse), each as its decimal text (sums
 * can pass 2^53) or a number, with the distinct order counts exact for the row's own grain.
 */
export type GivenFigures = Record<Figure, string | number>;
/** Given figures of one key of a report's grain (an id, or a day as YYYY-MM-DD). */
export type KeyedFigures = GivenFigures & { key: string };

/**
 * Given figures as one array parameter per figure (numeric, whatever their size), in FIGURES'
 * order, for `unnest(...)` beside the arrays of their keys.
 */
export const figureArrays = (rows: readonly GivenFigures[]): Sql => join(FIGURES.map((figure) => sql`${rows.map((r) => String(r[figure]))}::numeric[]`));

/** The column names of figureArrays' arrays. */
export const FIGURE_NAMES = raw(FIGURES.join(", "));

/**
 * `totals` and `orders` from figures summed elsewhere, one row per key: the same CTEs the report
 * tables give, so a listing reads them alike whichever store counted.
 */
function givenTotalsCtes(dimension: TotalsDimension, rows: readonly KeyedFigures[]): Sql {
  const keyType = raw(dimension === "day" ? "date" : "text");
  return sql`totals AS (
      SELECT * FROM unnest(${rows.map((r) => r.key)}::${keyType}[], ${figureArrays(rows)}) AS given(key, ${FIGURE_NAMES})
    ), orders AS (
      SELECT key, ${ORDER_FIGURE_NAMES} FROM totals
    )`;
}

/**
 * Two CTEs, `totals` and `orders`, keyed by `dimension`: from the report tables, or from `given`
 * figures (the ClickHouse store's, already narrowed to the filter) when those are passed.
 */
export function totalsCtes(dimension: TotalsDimension, filter: TotalsFilter, given?: readonly KeyedFigures[]): Sql {
  if (given) return givenTotalsCtes(dimension, given);
  const { range, scope, campaignId } = filter;
  const { advertiserId, publisherIds } = scope;
  const source = sourceOf(dimension, filter);
  const publishers =
    source.table !== "daily_ad_totals"
      ? sql`AND (${publisherIds}::text[] IS NULL OR r.publisher_id = ANY(${publisherIds}))`
      : publisherIds !== null
        ? sql`AND r.publisher_id = ANY(${publisherIds})`
        : sql`AND r.publisher_id = ''`;
  const orders =
    source.orders === "table"
      ? sql`SELECT key, ${ORDER_FIGURE_NAMES} FROM totals`
      : publisherOrders(dimension as "advertiser_id" | "publisher_id" | "day", filter);
  return sql`totals AS (
      SELECT ${raw(source.key)} AS key, sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks,
             sum(r.spend_micros) AS spend_micros, sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events,
             sum(${raw(invalidEventsSum("r"))}) AS invalid_events,
             sum(r.sales_revenue_micros) AS sales_revenue_micros, sum(r.conversions) AS conversions,
             sum(r.unverified_sales_revenue_micros) AS unverified_sales_revenue_micros, sum(r.unverified_conversions) AS unverified_conversions,
             sum(r.uncredited_sales_revenue_micros) AS uncredited_sales_revenue_micros, sum(r.uncredited_conversions) AS uncredited_conversions,
             sum(r.conversions_click) AS conversions_click, sum(r.sales_revenue_click_micros) AS sales_revenue_click_micros,
             sum(r.units_sold_micros) AS units_sold_micros, sum(r.converted_clicks) AS converted_clicks,
             sum(r.halo_conversions) AS halo_conversions, sum(r.halo_sales_revenue_micros) AS halo_sales_revenue_micros,
             sum(r.ntb_conversions) AS ntb_conversions, sum(r.ntb_sales_revenue_micros) AS ntb_sales_revenue_micros
        FROM ${raw(source.table)} r
       WHERE ${zonedDays("r", range)} ${oneCampaign(campaignId)}
         AND (${advertiserId}::text IS NULL OR r.advertiser_id = ${advertiserId}) ${publishers}
       GROUP BY 1
    ), orders AS (
      ${orders}
    )`;
}

/** Columns of the totals for a row joined as `t` (totals) and `o` (orders), zero where absent. */
export const TOTALS_COLUMNS = raw(`
  coalesce(t.impressions, 0)::float8 AS impressions, coalesce(t.views, 0)::float8 AS views, coalesce(t.clicks, 0)::float8 AS clicks,
  coalesce(t.spend_micros, 0)::float8 AS spend_micros, coalesce(t.duplicate_events, 0)::float8 AS duplicate_events,
  coalesce(t.bot_events, 0)::float8 AS bot_events, coalesce(t.invalid_events, 0)::float8 AS invalid_events,
  coalesce(t.sales_revenue_micros, 0)::float8 AS sales_revenue_micros,
  coalesce(o.conversions, 0)::float8 AS conversions,
  coalesce(t.unverified_sales_revenue_micros, 0)::float8 AS unverified_sales_revenue_micros,
  coalesce(o.unverified_conversions, 0)::float8 AS unverified_conversions,
  coalesce(t.uncredited_sales_revenue_micros, 0)::float8 AS uncredited_sales_revenue_micros,
  coalesce(o.uncredited_conversions, 0)::float8 AS uncredited_conversions,
  coalesce(o.conversions_click, 0)::float8 AS conversions_click,
  coalesce(t.sales_revenue_click_micros, 0)::float8 AS sales_revenue_click_micros,
  coalesce(t.units_sold_micros, 0)::float8 AS units_sold_micros, coalesce(t.converted_clicks, 0)::float8 AS converted_clicks,
  coalesce(o.halo_conversions, 0)::float8 AS halo_conversions, coalesce(t.halo_sales_revenue_micros, 0)::float8 AS halo_sales_revenue_micros,
  coalesce(o.ntb_conversions, 0)::float8 AS ntb_conversions, coalesce(t.ntb_sales_revenue_micros, 0)::float8 AS ntb_sales_revenue_micros`);

/** order_by names of the metrics, as SQL over rows carrying TOTALS_COLUMNS. */
export const METRIC_SORTS = {
  impressions_total: "impressions",
  clicks_total: "clicks",
  ad_revenue: "spend_micros",
  conversions_total: "conversions",
  sales_revenue: "sales_revenue_micros",
  ctr: "CASE WHEN impressions = 0 THEN 0 ELSE clicks / impressions END",
} as const;

/**
 * The end of a paged report query over a CTE named `listed` with an `id` column: every row
 * counted in `total`, sorted by `sort` (SQL from a report's list of sorts; ties by id, so pages
 * never overlap), one page taken.
 */
export function pagedSelect(sort: string, order: "asc" | "desc"): Sql {
  return sql`SELECT *, count(*) OVER ()::int AS total
      FROM listed
     ORDER BY ${raw(sort)} ${raw(order === "asc" ? "ASC" : "DESC")}, id ASC
     LIMIT ${PAGE_LIMIT} OFFSET ${PAGE_OFFSET}`;
}
