// Hand-written SQL: the detailed reports for advertisers, one row per campaign (or ad) and day,
// and, for campaigns bought through a network, one more row per sub-publisher and day right
// after it. GROUPING SETS computes both levels in one pass over daily_rollups and attributions,
// so a sub-publisher row and its total row can never disagree.
import type { ReportQuery } from "./report-query";
import type { ReportScope } from "./report-scope";
import { METRIC_SORTS, metricsOf, reportPage, TOTALS_COLUMNS, type Metrics, type ReportPage, type ReportStatement, type TotalsRow } from "./rollup-totals.sql";

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
    objects: `SELECT c.id AS key, c.id AS campaign_id, c.name, c.type::text AS object_type, NULL::text AS campaign, c.advertiser_id FROM campaigns c`,
  },
  ad: {
    key: "ad_id",
    objects: `SELECT a.id AS key, c.id AS campaign_id, a.name, a.type::text AS object_type, c.name AS campaign, c.advertiser_id
                FROM ads a JOIN campaigns c ON c.id = a.campaign_id`,
  },
} as const;

/** The detailed report at the campaign or ad grain, for an advertiser's scope. */
export function detailedReportStatement(grain: DetailedGrain, scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): ReportStatement<CampaignsDetailedRow | AdsDetailedRow> {
  const { key, objects } = GRAIN[grain];
  const sort = SORTABLE[query.orderBy];
  const direction = query.order === "asc" ? "ASC" : "DESC";
  // '' marks the total row of a (day, key) group: a grouping set without the publisher. Groups
  // sort by their total row; sub-publisher rows follow it. Rows are sorted and paged while still
  // narrow (keys and figures); names are joined to the page's rows only.
  const order = (row: string, groupSort: string) =>
    `${groupSort} ${direction}, ${row}.day ${direction}, ${row}.key ASC, ${row}.publisher_id <> '' ASC, ${row}.sort_value ${direction}, ${row}.publisher_id ASC`;
  const sql = `
    WITH traffic AS (
      SELECT r.day, r.${key} AS key, CASE WHEN grouping(r.publisher_id) = 1 THEN '' ELSE r.publisher_id END AS publisher_id,
             sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks, sum(r.spend_micros) AS spend_micros,
             sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events, sum(r.sales_revenue_micros) AS sales_revenue_micros
        FROM daily_rollups r
       WHERE r.day BETWEEN $1::date AND $2::date
         AND ($3::text IS NULL OR r.advertiser_id = $3) AND ($4::text[] IS NULL OR r.publisher_id = ANY($4))
         AND ($5::text IS NULL OR r.advertiser_id = $5) AND ($6::text IS NULL OR r.campaign_id = $6) AND ($7::text IS NULL OR r.ad_id = $7)
       GROUP BY GROUPING SETS ((r.day, r.${key}), (r.day, r.${key}, r.publisher_id))
    ), orders AS (
      SELECT (a.placed_at AT TIME ZONE 'UTC')::date AS day, a.${key} AS key,
             CASE WHEN grouping(a.publisher_id) = 1 THEN '' ELSE a.publisher_id END AS publisher_id,
             count(DISTINCT a.conversion_id) AS conversions
        FROM attributions a
       WHERE a.placed_at >= $1::date AND a.placed_at < $2::date + 1
         AND ($3::text IS NULL OR a.advertiser_id = $3) AND ($4::text[] IS NULL OR a.publisher_id = ANY($4))
         AND ($5::text IS NULL OR a.advertiser_id = $5) AND ($6::text IS NULL OR a.campaign_id = $6) AND ($7::text IS NULL OR a.ad_id = $7)
       GROUP BY GROUPING SETS (((a.placed_at AT TIME ZONE 'UTC')::date, a.${key}), ((a.placed_at AT TIME ZONE 'UTC')::date, a.${key}, a.publisher_id))
    ), measured AS (
      SELECT coalesce(t.day, o.day) AS day, coalesce(t.key, o.key) AS key, coalesce(t.publisher_id, o.publisher_id) AS publisher_id, ${TOTALS_COLUMNS}
        FROM traffic t FULL JOIN orders o ON o.day = t.day AND o.key = t.key AND o.publisher_id = t.publisher_id
    ), objects AS (${objects}), networks AS (
      SELECT cp.campaign_id, string_agg(n.id, ',' ORDER BY n.id) AS network_ids
        FROM campaign_publishers cp JOIN accounts n ON n.id = cp.publisher_id AND n.kind = 'network'
       GROUP BY cp.campaign_id
    ), listed AS MATERIALIZED (
      SELECT m.*, x.campaign_id, n.network_ids, ${sort} AS sort_value
        FROM measured m
        JOIN objects x ON x.key = m.key
        LEFT JOIN networks n ON n.campaign_id = x.campaign_id
       WHERE m.publisher_id = '' OR n.network_ids IS NOT NULL
    ), page AS (
      SELECT l.*, g.sort_value AS group_sort
        FROM listed l
        JOIN listed g ON g.day = l.day AND g.key = l.key AND g.publisher_id = ''
       ORDER BY ${order("l", "g.sort_value")}
       LIMIT $8 OFFSET $9
    )
    SELECT page.*, page.day::text AS day_text, x.name, x.object_type, x.campaign, x.advertiser_id,
           CASE WHEN page.publisher_id = '' THEN page.network_ids ELSE coalesce(p.network_id, CASE WHEN p.kind = 'network' THEN p.id END) END AS network_id,
           p.name AS publisher, (SELECT count(*) FROM listed)::int AS total
      FROM page
      JOIN objects x ON x.key = page.key
      LEFT JOIN accounts p ON p.id = page.publisher_id
     ORDER BY ${order("page", "page.group_sort")}`;
  const values = (limit: number | null, offset: number) => [
    query.startDate, query.endDate, scope.advertiserId, scope.publisherIds,
    query.ids.advertiser_id ?? null, query.ids.campaign_id ?? null, query.ids.ad_id ?? null, limit, offset,
  ];
  type Row = TotalsRow & {
    day_text: string; key: string; publisher_id: string; campaign_id: string; name: string; object_type: string; campaign: string | null;
    advertiser_id: string; network_id: string | null; publisher: string | null; total: number;
  };
  const row = (r: Row) => {
    const base = {
      day: r.day_text,
      level: r.publisher_id === "" ? grain : ("sub_publisher" as const),
    };
    const where = {
      advertiser_id: r.advertiser_id, network_id: r.network_id, publisher_id: r.publisher_id === "" ? null : r.publisher_id, publisher: r.publisher,
    };
    return grain === "campaign"
      ? ({ ...base, campaign_id: r.campaign_id, name: r.name, campaign_type: r.object_type, ...where, ...metricsOf(r) } satisfies CampaignsDetailedRow)
      : ({ ...base, ad_id: r.key, name: r.name, ad_type: r.object_type, campaign_id: r.campaign_id, campaign: r.campaign ?? "", ...where, ...metricsOf(r) } satisfies AdsDetailedRow);
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
