// One campaign for GET /campaign/:id: its listing row, daily rows (daily-metrics.sql.ts) and ads.

import type { ReportScope } from "@/server/store/report-query";
import { MAX_PER_PAGE, type ReportQuery } from "@/server/store/report-query";
import type { CampaignDetail, DayMetrics } from "@/server/store/report-rows";
import { adResultsStatement } from "./ad-results.sql";
import { campaignListingStatement } from "./campaign-listing.sql";
import { dailyMetrics } from "./daily-metrics.sql";

/** The campaign's daily rows over the range, in scope. */
export const campaignDays = (scope: ReportScope, campaignId: string, range: { startDate: string; endDate: string }): Promise<DayMetrics[]> =>
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
  const [campaign] = (await campaignListingStatement(scope, { ...base, orderBy: "impressions_total" }).page(base)).data;
  if (!campaign) return null;
  const [daily, ads] = await Promise.all([
    campaignDays(scope, campaignId, query),
    options.withAds === false ? null : adResultsStatement(scope, { ...base, orderBy: "impressions_total" }).page(base),
  ]);
  return { ...campaign, daily, ads: ads?.data ?? [], ads_total: ads?.total ?? 0 };
}
