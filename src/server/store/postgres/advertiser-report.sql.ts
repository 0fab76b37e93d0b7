// Hand-written SQL: per-advertiser totals from the report tables (rollup-totals.sql.ts) for a
// range and a scope, with the advertiser layout's account fields, sorted and paged in the database.

import sql from "sql-template-tag";
import { fromMicros } from "@/server/core/money";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { AdvertiserReportOrderBy, AdvertiserReportRow } from "@/server/store/report-rows";
import { type ReportStatement, reportStatement } from "./report-runner";
import { type KeyedFigures, METRIC_SORTS, pagedSelect, TOTALS_COLUMNS, totalsCtes } from "./rollup-totals.sql";

const SORTABLE: Record<AdvertiserReportOrderBy, string> = { ...METRIC_SORTS, advertiser: "name" };

type Row = TotalsRow & {
  id: string;
  name: string;
  seller_id: string | null;
  wallet_balance_micros: number;
  daily_budget_micros: number | null;
  currency: string;
  total: number;
};

/**
 * Advertisers in scope with their totals over the range: for a publisher (or network), those
 * with traffic on its inventory in the range or a campaign that targets it; for an advertiser,
 * itself. `given`: figures summed elsewhere instead of the report tables (totalsCtes).
 */
export function advertiserReportStatement(
  scope: ReportScope,
  query: ReportQuery<AdvertiserReportOrderBy>,
  given?: readonly KeyedFigures[],
): ReportStatement<AdvertiserReportRow> {
  const { advertiserId, publisherIds, targetedPublisherIds } = scope;
  const advertiserFilter = query.ids.advertiser_id ?? null;
  const listing = sql`
    WITH ${totalsCtes("advertiser_id", { range: query, scope }, given)}, listed AS (
      SELECT adv.id, adv.name, adv.seller_id, adv.wallet_balance_micros::float8 AS wallet_balance_micros,
             adv.daily_budget_micros::float8 AS daily_budget_micros, adv.currency, ${TOTALS_COLUMNS}
        FROM accounts adv
        LEFT JOIN totals t ON t.key = adv.id
        LEFT JOIN orders o ON o.key = adv.id
       WHERE adv.kind = 'advertiser'
         AND (${advertiserId}::text IS NULL OR adv.id = ${advertiserId})
         AND (${publisherIds}::text[] IS NULL OR t.key IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaigns c JOIN campaign_publishers cp ON cp.campaign_id = c.id
                          WHERE c.advertiser_id = adv.id AND cp.publisher_id = ANY(${targetedPublisherIds})))
         AND (${advertiserFilter}::text IS NULL OR adv.id = ${advertiserFilter})
    )
    ${pagedSelect(SORTABLE[query.orderBy], query.order)}`;
  return reportStatement(listing, (r: Row) => ({
    advertiser: r.name,
    advertiser_id: r.id,
    seller_id: r.seller_id,
    wallet_balance: fromMicros(r.wallet_balance_micros),
    daily_budget: r.daily_budget_micros === null ? null : fromMicros(r.daily_budget_micros),
    currency: r.currency.trim(),
    ...metricsOf(r),
  }));
}
