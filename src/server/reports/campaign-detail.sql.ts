// Hand-written SQL: one campaign's daily totals over the range, every day present (zeros where
// nothing happened), from daily_rollups and attributions.
import { pgPool } from "@/server/db/pg-pool";
import { adResults, type AdResultsRow } from "./ad-results.sql";
import { campaignListing, type CampaignListingRow } from "./campaign-listing.sql";
import { MAX_PER_PAGE, type ReportQuery } from "./report-query";
import type { ReportScope } from "./report-scope";
import { metricsOf, TOTALS_COLUMNS, totalsCtes, type Metrics, type TotalsRow } from "./rollup-totals.sql";

export interface CampaignDay extends Metrics {
  day: string;
}

export interface CampaignDetail extends CampaignListingRow {
  daily: CampaignDay[];
  /** Its ads by impressions, the first 1,000 (/ad/results/v2?campaign_id= pages through all). */
  ads: AdResultsRow[];
  /** How many ads the campaign has in scope, listed or not. */
  ads_total: number;
}

const dailySql = (publisherScoped: boolean) => `
  WITH ${totalsCtes("day", { campaignParameter: "$5", publisherScoped })}
  SELECT d.day::date::text AS day, ${TOTALS_COLUMNS}
    FROM generate_series($1::date, $2::date, interval '1 day') AS d(day)
    LEFT JOIN totals t ON t.key = d.day::date
    LEFT JOIN orders o ON o.key = d.day::date
   ORDER BY d.day`;

/** The campaign's daily rows over the range, in scope. */
export async function campaignDays(scope: ReportScope, campaignId: string, range: { startDate: string; endDate: string }): Promise<CampaignDay[]> {
  const { rows } = await pgPool().query<TotalsRow & { day: string }>(dailySql(scope.publisherIds !== null), [range.startDate, range.endDate, scope.advertiserId, scope.publisherIds, campaignId]);
  return rows.map((r) => ({ day: r.day, ...metricsOf(r) }));
}

/**
 * One campaign with its totals, daily rows and ads over the range; null when the campaign is not
 * in the caller's scope (as if it did not exist). `withAds: false` (the download, which holds the
 * daily rows only) leaves the ads out.
 */
export async function campaignDetail(scope: ReportScope, campaignId: string, query: ReportQuery<string>, options: { withAds?: boolean } = {}): Promise<CampaignDetail | null> {
  const base = { ...query, page: 1, perPage: MAX_PER_PAGE, order: "desc" as const, ids: { campaign_id: campaignId } };
  const [campaign] = (await campaignListing(scope, { ...base, orderBy: "impressions_total" })).data;
  if (!campaign) return null;
  const [daily, ads] = await Promise.all([
    campaignDays(scope, campaignId, query),
    options.withAds === false ? null : adResults(scope, { ...base, orderBy: "impressions_total" }),
  ]);
  return { ...campaign, daily, ads: ads?.data ?? [], ads_total: ads?.total ?? 0 };
}
