// Hand-written SQL: a report row is an aggregate over the report tables (rollup-totals.sql.ts)
// for a range and a scope, sorted and paged in the database.

import sql from "sql-template-tag";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { CampaignListingOrderBy, CampaignListingRow } from "@/server/store/report-rows";
import { type ReportStatement, reportStatement } from "./report-runner";
import { type KeyedFigures, METRIC_SORTS, pagedSelect, TOTALS_COLUMNS, totalsCtes } from "./rollup-totals.sql";

// order_by names → SQL over the listed rows; the first is the default.
const SORTABLE: Record<CampaignListingOrderBy, string> = { ...METRIC_SORTS, name: "name", start_date: "start_date" };

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

/**
 * Campaigns in scope with their totals over the range (docs/interface-decisions.md §4 metrics), one page of them.
 * Campaigns without traffic in the range are listed with zeros; for a publisher, those that
 * target it (or its network). `given`: figures summed elsewhere instead of the report tables (totalsCtes).
 */
export function campaignListingStatement(
  scope: ReportScope,
  query: ReportQuery<CampaignListingOrderBy>,
  given?: readonly KeyedFigures[],
): ReportStatement<CampaignListingRow> {
  const { advertiserId, publisherIds, targetedPublisherIds } = scope;
  const advertiserFilter = query.ids.advertiser_id ?? null;
  const campaignFilter = query.ids.campaign_id ?? null;
  const listing = sql`
    WITH ${totalsCtes("campaign_id", { range: query, scope }, given)}, listed AS (
      SELECT c.id, c.name, c.type::text AS campaign_type, c.status::text AS campaign_status, c.advertiser_id,
             c.start_date::text AS start_date, c.end_date::text AS end_date, ${TOTALS_COLUMNS}
        FROM campaigns c
        LEFT JOIN totals t ON t.key = c.id
        LEFT JOIN orders o ON o.key = c.id
       WHERE (${advertiserId}::text IS NULL OR c.advertiser_id = ${advertiserId})
         AND (${publisherIds}::text[] IS NULL OR t.key IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaign_publishers cp WHERE cp.campaign_id = c.id AND cp.publisher_id = ANY(${targetedPublisherIds})))
         AND (${advertiserFilter}::text IS NULL OR c.advertiser_id = ${advertiserFilter}) AND (${campaignFilter}::text IS NULL OR c.id = ${campaignFilter})
    )
    ${pagedSelect(SORTABLE[query.orderBy], query.order)}`;
  return reportStatement(listing, (r: Row) => ({
    campaign_id: r.id,
    name: r.name,
    campaign_type: r.campaign_type,
    campaign_status: r.campaign_status,
    advertiser_id: r.advertiser_id,
    start_date: r.start_date,
    end_date: r.end_date,
    ...metricsOf(r),
  }));
}
