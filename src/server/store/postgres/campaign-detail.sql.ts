// One campaign for GET /campaign/:id: its listing row, daily rows (daily-metrics.sql.ts) and ads,
// put together from a store's own reads of each (the ClickHouse store passes its own).

import { MAX_PER_PAGE, type ReportScope, type ZonedRange } from "@/server/store/report-query";
import type { CampaignDetail, DayMetrics } from "@/server/store/report-rows";
import type { ReportReads } from "@/server/store/store";
import { adResultsStatement } from "./ad-results.sql";
import { campaignListingStatement } from "./campaign-listing.sql";
import { dailyMetrics } from "./daily-metrics.sql";

/** What a campaign's page is made of: its listing row, its ads, and its daily rows over a range in scope. */
export interface CampaignDetailReads {
  campaigns: ReportReads["campaigns"];
  adResults: ReportReads["adResults"];
  days(scope: ReportScope, campaignId: string, range: ZonedRange): Promise<DayMetrics[]>;
}

/**
 * One campaign with its totals, daily rows and ads over the range; null when the campaign is not
 * in the caller's scope (as if it did not exist). `withAds: false` (the download, which holds the
 * daily rows only) leaves the ads out.
 */
export function campaignDetailOf(reads: CampaignDetailReads): ReportReads["campaign"] {
  return async (scope, campaignId, query, options = {}): Promise<CampaignDetail | null> => {
    const base = { ...query, page: 1, perPage: MAX_PER_PAGE, order: "desc" as const, ids: { campaign_id: campaignId } };
    const [campaign] = (await reads.campaigns(scope, { ...base, orderBy: "impressions_total" }).page(base)).data;
    if (!campaign) return null;
    const [daily, ads] = await Promise.all([
      reads.days(scope, campaignId, query),
      options.withAds === false ? null : reads.adResults(scope, { ...base, orderBy: "impressions_total" }).page(base),
    ]);
    return { ...campaign, daily, ads: ads?.data ?? [], ads_total: ads?.total ?? 0 };
  };
}

/** The campaign's daily rows over the range, in scope, from the report tables. */
export const campaignDays = (scope: ReportScope, campaignId: string, range: ZonedRange): Promise<DayMetrics[]> => dailyMetrics(scope, range, campaignId);

export const campaignDetail = campaignDetailOf({ campaigns: campaignListingStatement, adResults: adResultsStatement, days: campaignDays });
