// Hand-written SQL: the detailed reports for advertisers, one row per campaign (or ad) and day,
// and, for campaigns bought through a network, one more row per sub-publisher and day right
// after it. GROUPING SETS computes both levels in one pass over daily_rollups and attributions,
// so a sub-publisher row and its total row can never disagree.
import type { ReportQuery } from "./report-query";
import type { ReportScope } from "./report-scope";
import { invalidEventsSum } from "./report-tables";
import { METRIC_SORTS, type Metrics, metricsOf, type ReportPage, type ReportStatement, reportPage, type TotalsRow } from "./rollup-totals.sql";

const SORTABLE = { day: "day", ...METRIC_SORTS, name: "name" } as const;
export type DetailedReportOrderBy = keyof typeof SORTABLE;
export const DETAILED_REPORT_ORDER_BY = Object.keys(SORTABLE) as [DetailedReportOrderBy, ...DetailedReportOrderBy[]];

export type DetailedGrain = "campaign" | "ad";

interface DetailedRowBase extends Metrics {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** `campaign` or `ad`: the row's totals on every publisher; `sub_publisher`: one publisher's share. */
  level: DetailedGrain | "sub_publisher";
  campaign_id: string;
  advertiser_id: string;
  /**
   * Total rows: the networks the campaign buys through, comma-separated (null for a direct
   * campaign). Sub-publisher rows: the network the publisher belongs to.
   */
  network_id: string | null;
  /** Sub-publisher rows only (null on total rows). */
  publisher_id: string | null;
  publisher: string | null;
}

export interface CampaignsDetailedRow extends DetailedRowBase {
  name: string;
  campaign_type: string;
}

export interface AdsDetailedRow extends DetailedRowBase {
  ad_id: string;
  name: string;
  ad_type: string;
  campaign: string;
}

const GRAIN = {
  campaign: {
    key: "campaign_id",
    objects: `SELECT c.id AS key, c.id AS campaign_id, c.name, c.type::text AS object_type, NULL::text AS campaign, c.advertiser_id
                FROM campaigns c WHERE $3::text IS NULL OR c.advertiser_id = $3`,
  },
  ad: {
    key: "ad_id",
    objects: `SELECT a.id AS key, c.id AS campaign_id, a.name, a.type::text AS object_type, c.name AS campaign, c.advertiser_id
                FROM ads a JOIN campaigns c ON c.id = a.campaign_id WHERE $3::text IS NULL OR c.advertiser_id = $3`,
  },
} as const;

/** The detailed report at the campaign or ad grain, for an advertiser's scope. */
export function detailedReportStatement(
  grain: DetailedGrain,
  scope: ReportScope,
  query: ReportQuery<DetailedReportOrderBy>,
): ReportStatement<CampaignsDetailedRow | AdsDetailedRow> {
  const { key, objects } = GRAIN[grain];
  const sort = SORTABLE[query.orderBy];
  const direction = query.order === "asc" ? "ASC" : "DESC";
  // '' marks the total row of a (day, key) group: a grouping set without the publisher. Groups
  // sort by their total row; sub-publisher rows follow it. Rows are sorted and paged while still
  // narrow (keys and figures); names are joined to the page's rows only.
  const order = (row: string, groupSort: string) =>
    `${groupSort} ${direction}, ${row}.day ${direction}, ${row}.key ASC, ${row}.publisher_id <> '' ASC, ${row}.sort_value ${direction}, ${row}.publisher_id ASC`;
  const sums = `sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks, sum(r.spend_micros) AS spend_micros,
             sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events, sum(${invalidEventsSum("r")}) AS invalid_events,
             sum(r.sales_revenue_micros) AS sales_revenue_micros`;
  // $3: the caller's advertiser scope; $4, $5 (and $6 for ads): the advertiser_id, campaign_id
  // (and ad_id) filters; then LIMIT and OFFSET.
  const limitParameter = grain === "ad" ? 7 : 6;
  const filters = (alias: string) => `($3::text IS NULL OR ${alias}.advertiser_id = $3) AND ($4::text IS NULL OR ${alias}.advertiser_id = $4)
         AND ($5::text IS NULL OR ${alias}.campaign_id = $5)${grain === "ad" ? ` AND ($6::text IS NULL OR ${alias}.ad_id = $6)` : ""}`;
  const totalsTable = grain === "campaign" ? "daily_campaign_totals" : "daily_ad_totals";
  // daily_ad_totals holds each ad over every publisher (publisher_id '') and per publisher.
  const totalsOnly = grain === "ad" ? " AND r.publisher_id = ''" : "";
  const publishersOnly = grain === "ad" ? " AND r.publisher_id <> ''" : "";
  const limit = `$${limitParameter}::int`;
  const offset = `$${limitParameter + 1}::int`;
  // Sorted by day (the default), a page needs only the days it covers: rows are counted per day
  // (keys only, no sums), the days holding rows offset to offset + limit are chosen, and only
  // those days are summed. Other sorts need every row's figures.
  // A download reads every row once, in order: no day window, no page, no count.
  const whole = query.download;
  const byDay = query.orderBy === "day" && !whole;
  // Ad rows are counted from daily_ad_row_counts (a few rows per campaign and day) unless one ad
  // is asked for; counting daily_ad_totals' keys for a large advertiser cost 15 to 30 ms a request.
  const countedRows = grain === "ad" && query.ids.ad_id === undefined;
  const dayRows = countedRows
    ? `SELECT c.day, sum(c.ad_rows + CASE WHEN n.campaign_id IS NULL THEN 0 ELSE c.ad_publisher_rows END)::bigint AS n
        FROM daily_ad_row_counts c LEFT JOIN networks n ON n.campaign_id = c.campaign_id
       WHERE c.day BETWEEN $1::date AND $2::date AND ($3::text IS NULL OR c.advertiser_id = $3) AND ($4::text IS NULL OR c.advertiser_id = $4)
         AND ($5::text IS NULL OR c.campaign_id = $5)
       GROUP BY c.day`
    : `SELECT day, count(*)::bigint AS n FROM (
        SELECT ${grain === "ad" ? "" : "DISTINCT "}r.day, r.${key}, '' AS publisher_id FROM ${totalsTable} r
         WHERE r.day BETWEEN $1::date AND $2::date AND ${filters("r")}${totalsOnly}
        UNION ALL
        SELECT r.day, r.${key}, r.publisher_id FROM ${totalsTable} r JOIN networks n ON n.campaign_id = r.campaign_id
         WHERE r.day BETWEEN $1::date AND $2::date AND ${filters("r")}${publishersOnly}
      ) row_keys GROUP BY day
      -- A row of daily_ad_totals is one ad (or one ad on one publisher) on one day, and a row of
      -- daily_campaign_totals one campaign on one publisher: only campaign totals need DISTINCT.
      `;
  const dayWindow = byDay
    ? `day_rows AS (
      ${dayRows}
    ), placed AS (
      SELECT day, n, coalesce(sum(n) OVER (ORDER BY day ${direction} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before FROM day_rows
    ), chosen AS MATERIALIZED (
      SELECT day, before FROM placed WHERE before + n > ${offset} AND (${limit} IS NULL OR before < ${offset} + ${limit})
    ), `
    : "";
  const days = (column: string) =>
    byDay ? `${column} BETWEEN (SELECT min(day) FROM chosen) AND (SELECT max(day) FROM chosen)` : `${column} BETWEEN $1::date AND $2::date`;
  // Total rows: the coarse table of the grain, whose distinct order count is exact for it.
  const totals = `
      SELECT r.day, r.${key} AS key, '' AS publisher_id, ${sums}, sum(r.conversions) AS conversions
        FROM ${totalsTable} r
       WHERE ${days("r.day")} AND ${filters("r")}${totalsOnly}
       GROUP BY 1, 2`;
  // Sub-publisher rows of campaigns bought through a network, from the same table's per-publisher
  // rows, whose distinct order counts are exact for a campaign (or an ad) on a publisher.
  const subPublishers = `
      SELECT r.day, r.${key} AS key, r.publisher_id, ${sums}, sum(r.conversions) AS conversions
        FROM ${totalsTable} r JOIN networks n ON n.campaign_id = r.campaign_id
       WHERE ${days("r.day")} AND ${filters("r")}${publishersOnly}
       GROUP BY 1, 2, 3`;
  const sql = `
    WITH networks AS (
      SELECT cp.campaign_id, string_agg(n.id, ',' ORDER BY n.id) AS network_ids
        FROM campaign_publishers cp JOIN accounts n ON n.id = cp.publisher_id AND n.kind = 'network'
       GROUP BY cp.campaign_id
    ), ${dayWindow}measured AS (${totals}
      UNION ALL${subPublishers}
    ), objects AS (${objects}), listed AS MATERIALIZED (
      SELECT m.day, m.key, m.publisher_id,
             m.impressions::float8 AS impressions, m.views::float8 AS views, m.clicks::float8 AS clicks, m.spend_micros::float8 AS spend_micros,
             m.duplicate_events::float8 AS duplicate_events, m.bot_events::float8 AS bot_events, m.invalid_events::float8 AS invalid_events,
             m.sales_revenue_micros::float8 AS sales_revenue_micros, m.conversions::float8 AS conversions, n.network_ids, ${sort} AS sort_value
        FROM measured m
        JOIN objects x ON x.key = m.key
        LEFT JOIN networks n ON n.campaign_id = x.campaign_id
    ), page AS (
      SELECT l.*, g.sort_value AS group_sort
        FROM listed l
        JOIN listed g ON g.day = l.day AND g.key = l.key AND g.publisher_id = ''
       ${
         whole
           ? ""
           : `ORDER BY ${order("l", "g.sort_value")}
       LIMIT ${limit} OFFSET ${byDay ? `${offset} - coalesce((SELECT min(before) FROM chosen), 0)` : offset}`
       }
    )
    -- Only what a report row needs: dates as text, no sort keys (parsing them cost a download more than writing them).
    SELECT page.key, page.publisher_id, page.impressions, page.views, page.clicks, page.spend_micros, page.duplicate_events,
           page.bot_events, page.invalid_events, page.sales_revenue_micros, page.conversions, page.day::text AS day_text, x.campaign_id, x.name, x.object_type, x.campaign, x.advertiser_id,
           CASE WHEN page.publisher_id = '' THEN page.network_ids ELSE coalesce(p.network_id, CASE WHEN p.kind = 'network' THEN p.id END) END AS network_id,
           p.name AS publisher, ${whole ? "0" : byDay ? "(SELECT coalesce(sum(n), 0) FROM day_rows)" : "(SELECT count(*) FROM listed)"}::int AS total
      FROM page
      JOIN objects x ON x.key = page.key
      LEFT JOIN accounts p ON p.id = page.publisher_id
     ORDER BY ${order("page", "page.group_sort")}`;
  const values = (limit: number | null, offset: number) => [
    query.startDate,
    query.endDate,
    scope.advertiserId,
    query.ids.advertiser_id ?? null,
    query.ids.campaign_id ?? null,
    ...(grain === "ad" ? [query.ids.ad_id ?? null] : []),
    ...(whole ? [] : [limit, offset]),
  ];
  type Row = TotalsRow & {
    day_text: string;
    key: string;
    publisher_id: string;
    campaign_id: string;
    name: string;
    object_type: string;
    campaign: string | null;
    advertiser_id: string;
    network_id: string | null;
    publisher: string | null;
    total: number;
  };
  // Plain literals with one trailing spread: V8 builds several spreads into one literal on a
  // slow path, which cost 50 µs a row (9 s of a 135,000-row download).
  const row = (r: Row): CampaignsDetailedRow | AdsDetailedRow => {
    const level = r.publisher_id === "" ? grain : ("sub_publisher" as const);
    const publisherId = r.publisher_id === "" ? null : r.publisher_id;
    return grain === "campaign"
      ? {
          day: r.day_text,
          level,
          campaign_id: r.campaign_id,
          name: r.name,
          campaign_type: r.object_type,
          advertiser_id: r.advertiser_id,
          network_id: r.network_id,
          publisher_id: publisherId,
          publisher: r.publisher,
          ...metricsOf(r),
        }
      : {
          day: r.day_text,
          level,
          ad_id: r.key,
          name: r.name,
          ad_type: r.object_type,
          campaign_id: r.campaign_id,
          campaign: r.campaign ?? "",
          advertiser_id: r.advertiser_id,
          network_id: r.network_id,
          publisher_id: publisherId,
          publisher: r.publisher,
          ...metricsOf(r),
        };
  };
  return { sql, values, row };
}

export const campaignsDetailedStatement = (scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>) =>
  detailedReportStatement("campaign", scope, query) as ReportStatement<CampaignsDetailedRow>;
export const adsDetailedStatement = (scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>) =>
  detailedReportStatement("ad", scope, query) as ReportStatement<AdsDetailedRow>;
export const campaignsDetailed = (scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): Promise<ReportPage<CampaignsDetailedRow>> =>
  reportPage(campaignsDetailedStatement(scope, query), query);
export const adsDetailed = (scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): Promise<ReportPage<AdsDetailedRow>> =>
  reportPage(adsDetailedStatement(scope, query), query);
