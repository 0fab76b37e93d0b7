// The totals every report row is built from, as SQL text shared by the report queries: traffic,
// spend and sales summed from daily_rollups, and distinct credited orders counted in
// attributions (distinct counts do not add up across rollup rows). Parameters $1 to $4 of the
// surrounding query must be: first day, last day, advertiser scope, publisher scope.
import type pg from "pg";
import { pgPool } from "@/server/db/pg-pool";
import { fromMicros } from "@/server/money";

export type TotalsDimension = "advertiser_id" | "publisher_id" | "campaign_id" | "ad_id" | "day";

// The key of each grain in daily_rollups (r) and in attributions (a): orders count on the day
// they were placed, as the rollups do.
const KEYS: Record<TotalsDimension, { rollup: string; attribution: string }> = {
  advertiser_id: { rollup: "r.advertiser_id", attribution: "a.advertiser_id" },
  publisher_id: { rollup: "r.publisher_id", attribution: "a.publisher_id" },
  campaign_id: { rollup: "r.campaign_id", attribution: "a.campaign_id" },
  ad_id: { rollup: "r.ad_id", attribution: "a.ad_id" },
  day: { rollup: "r.day", attribution: "(a.placed_at AT TIME ZONE 'UTC')::date" },
};

/**
 * Two CTEs, `totals` and `orders`, keyed by `dimension`. With `campaignParameter` (say "$5"),
 * only that campaign's rows count.
 */
export function totalsCtes(dimension: TotalsDimension, campaignParameter?: string): string {
  const { rollup, attribution } = KEYS[dimension];
  const campaign = (alias: string) => (campaignParameter ? `AND ${alias}.campaign_id = ${campaignParameter}` : "");
  return `totals AS (
      SELECT ${rollup} AS key, sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks,
             sum(r.spend_micros) AS spend_micros, sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events,
             sum(r.sales_revenue_micros) AS sales_revenue_micros
        FROM daily_rollups r
       WHERE r.day BETWEEN $1::date AND $2::date ${campaign("r")}
         AND ($3::text IS NULL OR r.advertiser_id = $3) AND ($4::text[] IS NULL OR r.publisher_id = ANY($4))
       GROUP BY 1
    ), orders AS (
      SELECT ${attribution} AS key, count(DISTINCT a.conversion_id) AS conversions
        FROM attributions a
       WHERE a.placed_at >= $1::date AND a.placed_at < $2::date + 1 ${campaign("a")}
         AND ($3::text IS NULL OR a.advertiser_id = $3) AND ($4::text[] IS NULL OR a.publisher_id = ANY($4))
       GROUP BY 1
    )`;
}

/** Columns of the totals for a row joined as `t` (totals) and `o` (orders), zero where absent. */
export const TOTALS_COLUMNS = `
  coalesce(t.impressions, 0)::float8 AS impressions, coalesce(t.views, 0)::float8 AS views, coalesce(t.clicks, 0)::float8 AS clicks,
  coalesce(t.spend_micros, 0)::float8 AS spend_micros, coalesce(t.duplicate_events, 0)::float8 AS duplicate_events,
  coalesce(t.bot_events, 0)::float8 AS bot_events, coalesce(t.sales_revenue_micros, 0)::float8 AS sales_revenue_micros,
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
  duplicate_events: number;
  bot_events: number;
}

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? 0 : numerator / denominator);

/** The metrics of decisions §4 from a row's totals; a ratio over zero is 0. */
export function metricsOf(r: TotalsRow): Metrics {
  const adRevenue = fromMicros(r.spend_micros);
  const salesRevenue = fromMicros(r.sales_revenue_micros);
  return {
    impressions_total: r.impressions, views_total: r.views, clicks_total: r.clicks, ctr: ratio(r.clicks, r.impressions),
    ad_revenue: adRevenue, conversions_total: r.conversions, conversion_rate: ratio(r.conversions, r.clicks),
    sales_revenue: salesRevenue, roas: ratio(salesRevenue, adRevenue), duplicate_events: r.duplicate_events, bot_events: r.bot_events,
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
    const total = rows[0]?.total ?? (page.page > 1 ? (await run(1, 0)).rows[0]?.total ?? 0 : 0);
    return { data: rows.map((raw) => statement.row(raw)), page: page.page, per_page: page.perPage, total };
  });
}

/**
 * Every row of a report, for a download: the query runs once, through a cursor read `batch` rows
 * at a time, so neither the server nor the database holds more than a batch for the client.
 */
export async function* allReportRows<Row>(statement: ReportStatement<Row>, batch = 1000): AsyncIterable<Row[]> {
  const client = await pgPool().connect();
  let failed = false;
  try {
    // A cursor is planned for its first tenth of rows by default; a download reads all of them.
    await client.query(`BEGIN READ ONLY; SET LOCAL work_mem = '${REPORT_WORK_MEM}'; SET LOCAL cursor_tuple_fraction = 1`);
    await client.query(`DECLARE report_rows NO SCROLL CURSOR FOR ${statement.sql}`, statement.values(null, 0));
    for (;;) {
      const { rows } = await client.query<Record<string, unknown>>(`FETCH ${batch} FROM report_rows`);
      if (rows.length > 0) yield rows.map((raw) => statement.row(raw));
      if (rows.length < batch) break;
    }
    await client.query("COMMIT");
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    // A download abandoned half-way (the client went away) ends its transaction here too.
    if (!failed) await client.query("ROLLBACK").catch(() => {});
    client.release(failed);
  }
}
