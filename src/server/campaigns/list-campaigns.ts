import type { Actor } from "@/server/accounts/actor";
import { reportScopeOf } from "@/server/pipeline/report/report-scope-of";
import { campaignListing } from "@/server/store/postgres/campaign-listing.sql";
import { MAX_PER_PAGE } from "@/server/store/report-query";

/**
 * The campaigns in the actor's scope, or in an account's the actor may see (at most 1,000, by
 * impressions), with their totals over the range: the statement of /campaign/v2.
 */
export async function listCampaigns({ actor, accountId, startDate, endDate }: { actor: Actor; accountId?: string; startDate: string; endDate: string }) {
  const page = await campaignListing(await reportScopeOf({ actor, accountId }), {
    startDate,
    endDate,
    page: 1,
    perPage: MAX_PER_PAGE,
    orderBy: "impressions_total",
    order: "desc",
    download: false,
    ids: {},
  });
  return { campaigns: page.data, total: page.total };
}
