// Hand-written SQL: a report row is an aggregate over daily_rollups for a range and a scope,
// sorted and paged in the database; order counts come from attributions, because distinct
// orders do not add up across the ads of a campaign.
import { pgPool } from "@/server/db/pg-pool";
import { fromMicros } from "@/server/money";
import type { ReportQuery } from "./report-query";
import type { ReportScope } from "./report-scope";

// order_by names → SQL over the listed rows; the first is the default.
const SORTABLE = {
  impressions_total: "impressions",
  clicks_total: "clicks",
  ad_revenue: "spend_micros",
  conversions_total: "conversions",
  sales_revenue: "sales_revenue_micros",
  ctr: "CASE WHEN impressions = 0 THEN 0 ELSE clicks::numeric / impressions END",
  name: "name",
  start_date: "start_date",
} as const;
export type CampaignListingOrderBy = keyof typeof SORTABLE;
export const CAMPAIGN_LISTING_ORDER_BY = Object.keys(SORTABLE) as [CampaignListingOrderBy, ...CampaignListingOrderBy[]];

export interface CampaignListingRow {
  campaign_id: string;
  name: string;
  campaign_type: string;
  campaign_status: string;
  advertiser_id: string;
  start_date: string;
  end_date: string | null;
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

/** Campaigns in scope with their totals over the range (decisions §4 metrics), one page of them. */
export async function campaignListing(scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>): Promise<{ data: CampaignListingRow[]; page: number; per_page: number; total: number }> {
  const sql = `
    WITH totals AS (
      SELECT r.campaign_id, sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks,
             sum(r.spend_micros) AS spend_micros, sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events,
             sum(r.sales_revenue_micros) AS sales_revenue_micros
        FROM daily_rollups r
       WHERE r.day BETWEEN $1::date AND $2::date
         AND ($3::text IS NULL OR r.advertiser_id = $3) AND ($4::text[] IS NULL OR r.publisher_id = ANY($4))
       GROUP BY r.campaign_id
    ), orders AS (
      SELECT a.campaign_id, count(DISTINCT a.conversion_id) AS conversions
        FROM attributions a
       WHERE a.placed_at >= $1::date AND a.placed_at < $2::date + 1
         AND ($3::text IS NULL OR a.advertiser_id = $3) AND ($4::text[] IS NULL OR a.publisher_id = ANY($4))
       GROUP BY a.campaign_id
    ), listed AS (
      SELECT c.id, c.name, c.type::text AS campaign_type, c.status::text AS campaign_status, c.advertiser_id,
             c.start_date, c.end_date,
             coalesce(t.impressions, 0) AS impressions, coalesce(t.views, 0) AS views, coalesce(t.clicks, 0) AS clicks,
             coalesce(t.spend_micros, 0) AS spend_micros, coalesce(t.duplicate_events, 0) AS duplicate_events,
             coalesce(t.bot_events, 0) AS bot_events, coalesce(t.sales_revenue_micros, 0) AS sales_revenue_micros,
             coalesce(o.conversions, 0) AS conversions
        FROM campaigns c
        LEFT JOIN totals t ON t.campaign_id = c.id
        LEFT JOIN orders o ON o.campaign_id = c.id
       WHERE ($3::text IS NULL OR c.advertiser_id = $3)
         AND ($4::text[] IS NULL OR t.campaign_id IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaign_publishers cp WHERE cp.campaign_id = c.id AND cp.publisher_id = ANY($5)))
         AND ($6::text IS NULL OR c.advertiser_id = $6) AND ($7::text IS NULL OR c.id = $7)
    )
    SELECT id, name, campaign_type, campaign_status, advertiser_id, start_date::text, end_date::text,
           impressions::float8, views::float8, clicks::float8, spend_micros::float8, duplicate_events::float8,
           bot_events::float8, sales_revenue_micros::float8, conversions::float8, count(*) OVER ()::int AS total
      FROM listed
     ORDER BY ${SORTABLE[query.orderBy]} ${query.order === "asc" ? "ASC" : "DESC"}, id ASC
     LIMIT $8 OFFSET $9`;
  const { rows } = await pgPool().query<{
    id: string; name: string; campaign_type: string; campaign_status: string; advertiser_id: string; start_date: string; end_date: string | null;
    impressions: number; views: number; clicks: number; spend_micros: number; duplicate_events: number; bot_events: number;
    sales_revenue_micros: number; conversions: number; total: number;
  }>(sql, [
    query.startDate, query.endDate, scope.advertiserId, scope.publisherIds, scope.targetedPublisherIds,
    query.ids.advertiser_id ?? null, query.ids.campaign_id ?? null, query.perPage, (query.page - 1) * query.perPage,
  ]);
  const total = rows[0]?.total ?? (query.page > 1 ? await countListing(sql, scope, query) : 0);
  return {
    data: rows.map((r) => {
      const adRevenue = fromMicros(r.spend_micros);
      const salesRevenue = fromMicros(r.sales_revenue_micros);
      return {
        campaign_id: r.id, name: r.name, campaign_type: r.campaign_type, campaign_status: r.campaign_status, advertiser_id: r.advertiser_id,
        start_date: r.start_date, end_date: r.end_date,
        impressions_total: r.impressions, views_total: r.views, clicks_total: r.clicks, ctr: ratio(r.clicks, r.impressions),
        ad_revenue: adRevenue, conversions_total: r.conversions, conversion_rate: ratio(r.conversions, r.clicks),
        sales_revenue: salesRevenue, roas: ratio(salesRevenue, adRevenue), duplicate_events: r.duplicate_events, bot_events: r.bot_events,
      };
    }),
    page: query.page,
    per_page: query.perPage,
    total,
  };
}

// A page past the end has no rows to carry the window count: ask for the first row instead.
async function countListing(sql: string, scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>): Promise<number> {
  const { rows } = await pgPool().query<{ total: number }>(sql, [
    query.startDate, query.endDate, scope.advertiserId, scope.publisherIds, scope.targetedPublisherIds,
    query.ids.advertiser_id ?? null, query.ids.campaign_id ?? null, 1, 0,
  ]);
  return rows[0]?.total ?? 0;
}
