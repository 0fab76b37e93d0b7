// Hand-written SQL: a report row is an aggregate over daily_rollups for a range and a scope,
// sorted and paged in the database.
import type { ReportQuery } from "./report-query";
import type { ReportScope } from "./report-scope";
import {
  METRIC_SORTS,
  type Metrics,
  metricsOf,
  pagedSelect,
  type ReportPage,
  type ReportStatement,
  reportPage,
  TOTALS_COLUMNS,
  type TotalsRow,
  totalsCtes,
} from "./rollup-totals.sql";

// order_by names → SQL over the listed rows; the first is the default.
const SORTABLE = { ...METRIC_SORTS, name: "name", start_date: "start_date" } as const;
export type CampaignListingOrderBy = keyof typeof SORTABLE;
export const CAMPAIGN_LISTING_ORDER_BY = Object.keys(SORTABLE) as [CampaignListingOrderBy, ...CampaignListingOrderBy[]];

export interface CampaignListingRow extends Metrics {
  campaign_id: string;
  name: string;
  campaign_type: string;
  campaign_status: string;
  advertiser_id: string;
  start_date: string;
  end_date: string | null;
}

/**
 * Campaigns in scope with their totals over the range (decisions §4 metrics), one page of them.
 * Campaigns without traffic in the range are listed with zeros; for a publisher, those that
 * target it (or its network).
 */
export function campaignListingStatement(scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>): ReportStatement<CampaignListingRow> {
  const sql = `
    WITH ${totalsCtes("campaign_id", { publisherScoped: scope.publisherIds !== null })}, listed AS (
      SELECT c.id, c.name, c.type::text AS campaign_type, c.status::text AS campaign_status, c.advertiser_id,
             c.start_date::text AS start_date, c.end_date::text AS end_date, ${TOTALS_COLUMNS}
        FROM campaigns c
        LEFT JOIN totals t ON t.key = c.id
        LEFT JOIN orders o ON o.key = c.id
       WHERE ($3::text IS NULL OR c.advertiser_id = $3)
         AND ($4::text[] IS NULL OR t.key IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaign_publishers cp WHERE cp.campaign_id = c.id AND cp.publisher_id = ANY($5)))
         AND ($6::text IS NULL OR c.advertiser_id = $6) AND ($7::text IS NULL OR c.id = $7)
    )
    ${pagedSelect(SORTABLE[query.orderBy], query.order, 8)}`;
  const values = (limit: number | null, offset: number) => [
    query.startDate,
    query.endDate,
    scope.advertiserId,
    scope.publisherIds,
    scope.targetedPublisherIds,
    query.ids.advertiser_id ?? null,
    query.ids.campaign_id ?? null,
    limit,
    offset,
  ];
  type Row = TotalsRow & {
    id: string;
    name: string;
    campaign_type: string;
    campaign_status: string;
    advertiser_id: string;
    start_date: string;
    end_date: string | null;
    total: number;
  };
  return {
    sql,
    values,
    row: (r: Row) => ({
      campaign_id: r.id,
      name: r.name,
      campaign_type: r.campaign_type,
      campaign_status: r.campaign_status,
      advertiser_id: r.advertiser_id,
      start_date: r.start_date,
      end_date: r.end_date,
      ...metricsOf(r),
    }),
  };
}

/** One page of campaignListingStatement's rows. */
export const campaignListing = (scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>): Promise<ReportPage<CampaignListingRow>> =>
  reportPage(campaignListingStatement(scope, query), query);
