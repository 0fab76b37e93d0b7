import type { Actor } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { reportScopeOf } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { MAX_PER_PAGE } from "@/server/store/report-query";
import { campaignPacing } from "./pacing";

/**
 * One campaign in the actor's scope: its totals over the range, one row per day and its ads (the
 * statement of /campaign/:id), with today's pacing and its advertiser's wallet when the actor may
 * manage it (null otherwise). Outside the scope, as for an unknown id, "no such campaign".
 */
export async function getCampaign({ actor, id, startDate, endDate }: { actor: Actor; id: string; startDate: string; endDate: string }) {
  const detail = await store().reports.campaign(await reportScopeOf({ actor }), id, {
    startDate,
    endDate,
    page: 1,
    perPage: MAX_PER_PAGE,
    orderBy: "impressions_total",
    order: "desc",
    download: false,
    ids: {},
  });
  if (!detail) throw new TallyError("not_found", "no such campaign");
  const pacing = await campaignPacing({ actor, campaignIds: [id] });
  return { ...detail, pacing: pacing.campaigns[0] ?? null, wallet: pacing.advertisers[0] ?? null };
}
