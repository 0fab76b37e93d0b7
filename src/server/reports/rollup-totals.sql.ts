// The totals every report row is built from, as SQL text shared by the report queries: traffic,
// spend and sales summed from the report tables, and distinct credited orders from a table kept
// at the row's own grain (distinct counts do not add up across finer rows). Parameters $1 to $4
// of the surrounding query must be: first day, last day, advertiser scope, publisher scope.
import type pg from "pg";
import { cursorBatches } from "@/server/db/cursor";
import { pgPool } from "@/server/db/pg-pool";
import { fromMicros } from "@/server/money";
import { invalidEventsSum } from "./report-tables";

export type TotalsDimension = "advertiser_id" | "publisher_id" | "campaign_id" | "ad_id" | "day";

// Where each grain's figures come from. Traffic, credited lines and sales add up over any rows,
// so they are summed from the coarsest report table that has the grain's key and the scope's
// columns: daily_campaign_totals (day, publisher, advertiser, campaign) for every grain above the
// ad, daily_ad_totals (day, advertiser, campaign, ad, and a publisher or '' for all) for ads.
// Distinct orders add up over days and publishers (an order has one of each) but not over
// campaigns or ads, so they come from a table of the grain itself (daily_publisher_orders for
// advertisers and publishers), and are counted in attributions otherwise. Orders count on the
// day they were placed.
interface Source {
  table: "daily_campaign_totals" | "daily_ad_totals";
  key: string;
  /** Where distinct orders come from: the table's own conversions column (exact for the grain),
   *  daily_publisher_orders, or a count over attributions by this key. */
  orders: "table" | "publisher_orders" | { attributionKey: string };
}

function sourceOf(dimension: TotalsDimension, options: TotalsOptions): Source {
  switch (dimension) {
    case "campaign_id":
      return { table: "daily_campaign_totals", key: "r.campaign_id", orders: "table" };
    case "day":
      // Exact only within one campaign, which is how the campaign page asks for it.
      return {
        table: "daily_campaign_totals",
        key: "r.day",
        orders: options.campaignParameter !== undefined ? "table" : { attributionKey: "(a.placed_at AT TIME ZONE 'UTC')::date" },
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
 * Orders from daily_publisher_orders: per advertiser, its own rows; per publisher, the caller's
 * advertiser's rows, or the every-advertiser rows ('') when the caller is not an advertiser.
 */
function publisherOrders(dimension: "advertiser_id" | "publisher_id"): string {
  const rows =
    dimension === "advertiser_id" ? "o.advertiser_id <> '' AND ($3::text IS NULL OR o.advertiser_id = $3)" : "o.advertiser_id = coalesce($3::text, '')";
  return `SELECT o.${dimension} AS key, sum(o.conversions) AS conversions
        FROM daily_publisher_orders o
       WHERE o.day BETWEEN $1::date AND $2::date AND ${rows} AND ($4::text[] IS NULL OR o.publisher_id = ANY($4))
       GROUP BY 1`;
}

export interface TotalsOptions {
  /** Only this campaign's rows count (a parameter reference, say "$5"). */
  campaignParameter?: string;
  /** The caller's scope limits publishers ($4 is not null): the source must have publisher_id. */
  publisherScoped: boolean;
}

/** Two CTEs, `totals` and `orders`, keyed by `dimension`. */
export function totalsCtes(dimension: TotalsDimension, options: TotalsOptions): string {
  const source = sourceOf(dimension, options);
  const campaign = (alias: string) => (options.campaignParameter ? `AND ${alias}.campaign_id = ${options.campaignParameter}` : "");
  const publishers =
    source.table !== "daily_ad_totals"
      ? "AND ($4::text[] IS NULL OR r.publisher_id = ANY($4))"
      : options.publisherScoped
        ? "AND r.publisher_id = ANY($4)"
        : "AND r.publisher_id = ''";
  const orders =
    source.orders === "table"
      ? "SELECT key, conversions FROM totals"
      : source.orders === "publisher_orders"
        ? publisherOrders(dimension as "advertiser_id" | "publisher_id")
        : `SELECT ${source.orders.attributionKey} AS key, count(DISTINCT a.conversion_id) AS conversions
        FROM attributions a
       WHERE a.placed_at >= $1::date AND a.placed_at < $2::date + 1 ${campaign("a")}
         AND ($3::text IS NULL OR a.advertiser_id = $3) AND ($4::text[] IS NULL OR a.publisher_id = ANY($4))
       GROUP BY 1`;
  return `totals AS (
      SELECT ${source.key} AS key, sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks,
             sum(r.spend_micros) AS spend_micros, sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events,
             sum(${invalidEventsSum("r")}) AS invalid_events,
             sum(r.sales_revenue_micros) AS sales_revenue_micros, sum(r.conversions) AS conversions
        FROM ${source.table} r
       WHERE r.day BETWEEN $1::date AND $2::date ${campaign("r")}
         AND ($3::text IS NULL OR r.advertiser_id = $3) ${publishers}
       GROUP BY 1
    ), orders AS (
      ${orders}
    )`;
}

/** Columns of the totals for a row joined as `t` (totals) and `o` (orders), zero where absent. */
export const TOTALS_COLUMNS = `
  coalesce(t.impressions, 0)::float8 AS impressions, coalesce(t.views, 0)::float8 AS views, coalesce(t.clicks, 0)::float8 AS clicks,
  coalesce(t.spend_micros, 0)::float8 AS spend_micros, coalesce(t.duplicate_events, 0)::float8 AS duplicate_events,
  coalesce(t.bot_events, 0)::float8 AS bot_events, coalesce(t.invalid_events, 0)::float8 AS invalid_events,
  coalesce(t.sales_revenue_micros, 0)::float8 AS sales_revenue_micros,
  coalesce(o.conversions, 0)::float8 AS conversions`;

/** order_by names of the metrics, as SQL over rows carrying TOTALS_COLUMNS. */
export const METRIC_SORTS = {
  impressions_total: "impressions",
  clicks_total: "clicks",
  ad_revenue: "spend_micros",
  conversions_total: "conversions",
  sales_revenue: "sales_revenue_micros",
  ctr: "CASE WHEN impressions = 0 THEN 0 ELSE clicks / impressions END",
} as const;

export interface TotalsRow {
  impressions: number;
  views: number;
  clicks: number;
  spend_micros: number;
  duplicate_events: number;
  bot_events: number;
  invalid_events: number;
  sales_revenue_micros: number;
  conversions: number;
}

export interface Metrics {
  impressions_total: number;
  views_total: number;
  clicks_total: number;
  ctr: number;
  ad_revenue: number;
  conversions_total: number;
  conversion_rate: number;
  sales_revenue: number;
  roas: number;
  /** Beacons filtered as repeats inside the de-duplication windows. */
  duplicate_events: number;
  /** Beacons filtered as known bots (by user agent). */
  bot_events: number;
  /** Beacons filtered for every other reason: session_mismatch, token_reuse, no_user_agent, click_velocity. */
  invalid_events: number;
}

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? 0 : numerator / denominator);

/** The metrics of decisions §4 from a row's totals; a ratio over zero is 0. */
export function metricsOf(r: TotalsRow): Metrics {
  const adRevenue = fromMicros(r.spend_micros);
  const salesRevenue = fromMicros(r.sales_revenue_micros);
  return {
    impressions_total: r.impressions,
    views_total: r.views,
    clicks_total: r.clicks,
    ctr: ratio(r.clicks, r.impressions),
    ad_revenue: adRevenue,
    conversions_total: r.conversions,
    conversion_rate: ratio(r.conversions, r.clicks),
    sales_revenue: salesRevenue,
    roas: ratio(salesRevenue, adRevenue),
    duplicate_events: r.duplicate_events,
    bot_events: r.bot_events,
    invalid_events: r.invalid_events,
  };
}

export interface ReportPage<Row> {
  data: Row[];
  page: number;
  per_page: number;
  total: number;
}

/**
 * The end of a paged report query over a CTE named `listed` with an `id` column: every row
 * counted in `total`, sorted (ties by id, so pages never overlap), one page taken with the
 * LIMIT and OFFSET parameters `$limit` and `$limit + 1`.
 */
export function pagedSelect(sort: string, order: "asc" | "desc", limitParameter: number): string {
  return `SELECT *, count(*) OVER ()::int AS total
      FROM listed
     ORDER BY ${sort} ${order === "asc" ? "ASC" : "DESC"}, id ASC
     LIMIT $${limitParameter} OFFSET $${limitParameter + 1}`;
}

/**
 * A report query whose rows carry `count(*) OVER () AS total` and whose last two parameters are
 * LIMIT and OFFSET (a null limit is LIMIT ALL), with the mapping of a database row to a report row.
 */
export interface ReportStatement<Row> {
  sql: string;
  values: (limit: number | null, offset: number) => unknown[];
  /** The report row of a database row (whose shape the SQL decides, so each statement states it). */
  row(raw: object): Row;
}

// Report queries aggregate tens of thousands of rollup rows and sort the result; the default
// 4 MB of work memory sends those sorts and hashes to disk. Each report transaction gets more.
const REPORT_WORK_MEM = "32MB";

async function inReportTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pgPool().connect();
  try {
    await client.query(`BEGIN READ ONLY; SET LOCAL work_mem = '${REPORT_WORK_MEM}'`);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** One page of a report. A page past the end has no row to carry the count, so the first row is asked for instead. */
export function reportPage<Row>(statement: ReportStatement<Row>, page: { page: number; perPage: number }): Promise<ReportPage<Row>> {
  return inReportTransaction(async (client) => {
    const run = (limit: number, offset: number) => client.query<Record<string, unknown> & { total: number }>(statement.sql, statement.values(limit, offset));
    const { rows } = await run(page.perPage, (page.page - 1) * page.perPage);
    const total = rows[0]?.total ?? (page.page > 1 ? ((await run(1, 0)).rows[0]?.total ?? 0) : 0);
    return { data: rows.map((raw) => statement.row(raw)), page: page.page, per_page: page.perPage, total };
  });
}

/**
 * Every row of a report, for a download: the query runs once, through a cursor read `batch` rows
 * at a time, so neither the server nor the database holds more than a batch for the client.
 * 200 rows: the 135,000-row benchmark download took as long as with 1,000, and its rows and sheet
 * XML died young instead of piling up in the old generation (in-process peak 222–246 MB with 100
 * to 250 rows against 270–302 MB with 1,000; docs/decisions.md).
 */
export async function* allReportRows<Row>(statement: ReportStatement<Row>, batch = 200): AsyncIterable<Row[]> {
  for await (const rows of cursorBatches<object>(statement.sql, statement.values(null, 0), { batch, settings: [`work_mem = '${REPORT_WORK_MEM}'`] })) {
    yield rows.map((raw) => statement.row(raw));
  }
}
