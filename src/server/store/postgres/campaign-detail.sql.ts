// One campaign for GET /campaign/:id: its listing row, daily rows (daily-metrics.sql.ts) and ads.

import type { ReportScope } from "@/server/pipeline/report/report-scope";
import { MAX_PER_PAGE, type ReportQuery } from "@/server/store/report-query";
import { type AdResultsRow, adResults } from "./ad-results.sql";
import { type CampaignListingRow, campaignListing } from "./campaign-listing.sql";
import { type DayMetrics, dailyMetrics } from "./daily-metrics.sql";

export type CampaignDay = DayMetrics;

export interface CampaignDetail extends CampaignListingRow {
  daily: CampaignDay[];
  /** Its ads by impressions, the first 1,000 (/ad/results/v2?campaign_id= pages through all). */
  ads: AdResultsRow[];
  /** How many ads the campaign has in scope, listed or not. */
  ads_total: number;
}

/** The campaign's daily rows over the range, in scope. */
export const campaignDays = (scope: ReportScope, campaignId: string, range: { startDate: string; endDate: string }): Promise<CampaignDay[]> =>
  dailyMetrics(scope, range, campaignId);

/**
 * One campaign with its totals, daily rows and ads over the range; null when the campaign is not
 * in the caller's scope (as if it did not exist). `withAds: false` (the download, which holds the
 * daily rows only) leaves the ads out.
 */
export async function campaignDetail(
  scope: ReportScope,
  campaignId: string,
  query: ReportQuery<string>,
  options: { withAds?: boolean } = {},
): Promise<CampaignDetail | null> {
  const base = { ...query, page: 1, perPage: MAX_PER_PAGE, order: "desc" as const, ids: { campaign_id: campaignId } };
  const [campaign] = (await campaignListing(scope, { ...base, orderBy: "impressions_total" })).data;
  if (!campaign) return null;
  const [daily, ads] = await Promise.all([
    campaignDays(scope, campaignId, query),
    options.withAds === false ? null : adResults(scope, { ...base, orderBy: "impressions_total" }),
  ]);
  return { ...campaign, daily, ads: ads?.data ?? [], ads_total: ads?.total ?? 0 };
}
