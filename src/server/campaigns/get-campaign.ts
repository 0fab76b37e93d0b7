import type { Actor } from "@/server/accounts/actor";
import { previousRange } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { reportScopeOf } from "@/server/pipeline/report/report-scope";
import { viewZone } from "@/server/pipeline/report/view-zone";
import { store } from "@/server/store";
import { METRIC_FIELDS, type Metrics } from "@/server/store/metrics";
import { MAX_PER_PAGE, type ReportQuery } from "@/server/store/report-query";
import { campaignPacing } from "./pacing";

/**
 * One campaign in the actor's scope: its totals over the range, one row per day and its ads (the
 * statement of /campaign/:id), with its totals and days of the period just before (as many days)
 * to compare with, and today's pacing and its advertiser's wallet when the actor may manage it
 * (null otherwise). Outside the scope, as for an unknown id, "no such campaign". The range and
 * the days are local dates in `timeZone`, else in the view's zone (the advertiser's for staff,
 * view-zone.ts), which the answer names.
 */
export async function getCampaign({
  actor,
  id,
  startDate,
  endDate,
  timeZone,
}: {
  actor: Actor;
  id: string;
  startDate: string;
  endDate: string;
  timeZone?: string;
}) {
  const scope = await reportScopeOf({ actor });
  const { zone } = await viewZone({ actor, campaignId: id, asked: timeZone });
  const previous = previousRange({ startDate, endDate });
  const [detail, before] = await Promise.all([
    store().reports.campaign(scope, id, detailQuery(startDate, endDate, zone)),
    store().reports.campaign(scope, id, detailQuery(previous.startDate, previous.endDate, zone), { withAds: false }),
  ]);
  if (!detail) throw new TallyError("not_found", "no such campaign");
  const pacing = await campaignPacing({ actor, campaignIds: [id] });
  return {
    ...detail,
    previous: before ? { ...previous, total: metricsOnly(before), daily: before.daily } : null,
    pacing: pacing.campaigns[0] ?? null,
    wallet: pacing.advertisers[0] ?? null,
    zone,
  };
}

function detailQuery(startDate: string, endDate: string, zone: string): ReportQuery<string> {
  return { startDate, endDate, zone, page: 1, perPage: MAX_PER_PAGE, orderBy: "impressions_total", order: "desc", download: false, ids: {} };
}

const metricsOnly = (row: Metrics): Metrics => Object.fromEntries(METRIC_FIELDS.map((field) => [field, row[field]])) as Metrics;
