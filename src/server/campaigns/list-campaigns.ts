import type { Actor } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { reportScopeOf } from "@/server/pipeline/report/report-scope";
import { viewZone } from "@/server/pipeline/report/view-zone";
import { store } from "@/server/store";
import { MAX_PER_PAGE, type ReportQuery } from "@/server/store/report-query";
import type { CampaignListingOrderBy } from "@/server/store/report-rows";
import { campaignPacing } from "./pacing";

/**
 * The campaigns in the actor's scope, or in an account's the actor may see (at most 1,000, by
 * impressions), with their totals over the range: the statement of /campaign/v2; and today's
 * pacing of those the actor may manage (null on the others), with their advertisers' wallets;
 * and the names of the advertisers listed, so a publisher's list says whose each campaign is.
 * The range is local dates in `timeZone`, else in the view's zone (view-zone.ts), which the answer names.
 */
export async function listCampaigns({
  actor,
  accountId,
  startDate,
  endDate,
  timeZone,
}: {
  actor: Actor;
  accountId?: string;
  startDate: string;
  endDate: string;
  timeZone?: string;
}) {
  const { zone } = await viewZone({ actor, accountId, asked: timeZone });
  const query: ReportQuery<CampaignListingOrderBy> = {
    startDate,
    endDate,
    zone,
    page: 1,
    perPage: MAX_PER_PAGE,
    orderBy: "impressions_total",
    order: "desc",
    download: false,
    ids: {},
  };
  const page = await store()
    .reports.campaigns(await reportScopeOf({ actor, accountId }), query)
    .page(query);
  const pacing = await campaignPacing({ actor, campaignIds: page.data.map((c) => c.campaign_id) });
  const byCampaign = new Map(pacing.campaigns.map((p) => [p.campaignId, p]));
  const advertiserIds = [...new Set(page.data.map((c) => c.advertiser_id))];
  const advertiserNames = await db.account.findMany({ where: { id: { in: advertiserIds } }, select: { id: true, name: true } });
  return {
    advertiserNames: Object.fromEntries(advertiserNames.map((a) => [a.id, a.name])) as Record<string, string>,
    campaigns: page.data.map((c) => ({ ...c, pacing: byCampaign.get(c.campaign_id) ?? null })),
    total: page.total,
    advertisers: pacing.advertisers,
    zone,
  };
}
