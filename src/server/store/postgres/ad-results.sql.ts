// Hand-written SQL: per-ad totals from daily_ad_totals (rollup-totals.sql.ts) for a range and a
// scope, sorted and paged in the database (see campaign-listing.sql.ts for the campaign grain).

import sql from "sql-template-tag";
import { fromMicros } from "@/server/core/money";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { AdResultsOrderBy, AdResultsRow } from "@/server/store/report-rows";
import { type ReportStatement, reportStatement } from "./report-runner";
import { type KeyedFigures, METRIC_SORTS, pagedSelect, TOTALS_COLUMNS, totalsCtes } from "./rollup-totals.sql";

const SORTABLE: Record<AdResultsOrderBy, string> = { ...METRIC_SORTS, name: "name" };

type Row = TotalsRow & {
  id: string;
  name: string;
  campaign_id: string;
  advertiser_id: string;
  ad_type: string;
  ad_size: string | null;
  ad_status: string;
  ad_media_url: string | null;
  bid_model: "cpm" | "cpc";
  bid_micros: number;
  product_sku: string;
  total: number;
};

/** Ads in scope with their totals over the range, one page of them (ad layout fields); `given`: figures summed elsewhere (totalsCtes). */
export function adResultsStatement(scope: ReportScope, query: ReportQuery<AdResultsOrderBy>, given?: readonly KeyedFigures[]): ReportStatement<AdResultsRow> {
  const { advertiserId, publisherIds, targetedPublisherIds } = scope;
  const advertiserFilter = query.ids.advertiser_id ?? null;
  const campaignFilter = query.ids.campaign_id ?? null;
  const adFilter = query.ids.ad_id ?? null;
  const listing = sql`
    WITH ${totalsCtes("ad_id", { range: query, scope }, given)}, listed AS (
      SELECT a.id, a.name, a.campaign_id, c.advertiser_id, a.type::text AS ad_type, a.size AS ad_size, a.status::text AS ad_status,
             a.media_url AS ad_media_url, c.bid_model::text AS bid_model, c.bid_micros::float8 AS bid_micros,
             coalesce((SELECT string_agg(p.sku, ',' ORDER BY p.sku) FROM ad_products ap JOIN products p ON p.id = ap.product_ref WHERE ap.ad_id = a.id),
                      (SELECT string_agg(p.sku, ',' ORDER BY p.sku) FROM campaign_products cp JOIN products p ON p.id = cp.product_ref WHERE cp.campaign_id = c.id),
                      '') AS product_sku,
             ${TOTALS_COLUMNS}
        FROM ads a
        JOIN campaigns c ON c.id = a.campaign_id
        LEFT JOIN totals t ON t.key = a.id
        LEFT JOIN orders o ON o.key = a.id
       WHERE (${advertiserId}::text IS NULL OR c.advertiser_id = ${advertiserId})
         AND (${publisherIds}::text[] IS NULL OR t.key IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaign_publishers cp WHERE cp.campaign_id = c.id AND cp.publisher_id = ANY(${targetedPublisherIds})))
         AND (${advertiserFilter}::text IS NULL OR c.advertiser_id = ${advertiserFilter}) AND (${campaignFilter}::text IS NULL OR c.id = ${campaignFilter})
         AND (${adFilter}::text IS NULL OR a.id = ${adFilter})
    )
    ${pagedSelect(SORTABLE[query.orderBy], query.order)}`;
  return reportStatement(listing, (r: Row) => ({
    ad_id: r.id,
    name: r.name,
    campaign_id: r.campaign_id,
    advertiser_id: r.advertiser_id,
    ad_type: r.ad_type,
    ad_size: r.ad_size,
    ad_status: r.ad_status,
    ad_media_url: r.ad_media_url,
    cpm: r.bid_model === "cpm" ? fromMicros(r.bid_micros) : null,
    cpc: r.bid_model === "cpc" ? fromMicros(r.bid_micros) : null,
    product_sku: r.product_sku,
    ...metricsOf(r),
  }));
}
