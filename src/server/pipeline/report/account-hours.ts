// The dashboard's heatmap of hours (dayparting): an account's figures, or one campaign's, by local
// weekday and hour over a range, through the same store read as GET /report/hours.
import type { Actor } from "@/server/accounts/actor";
import { store } from "@/server/store";
import type { HoursReport } from "@/server/store/hours-report";
import { reportScopeOf } from "./report-scope";
import { viewZone } from "./view-zone";

interface HoursRequest {
  actor: Actor;
  accountId?: string;
  campaignId?: string;
  /** Local dates in the zone, inclusive. */
  startDate: string;
  endDate: string;
  /** The zone to read in; absent, the view's (view-zone.ts). */
  timeZone?: string;
}

/**
 * The 168 cells of the range in scope (one campaign's when `campaignId`; a campaign out of scope
 * reads as an empty week, as the route answers), the zone they are local to and from when its hours count.
 */
export async function accountHours({ actor, accountId, campaignId, startDate, endDate, timeZone }: HoursRequest): Promise<HoursReport> {
  const scope = await reportScopeOf({ actor, accountId });
  const { zone } = await viewZone({ actor, accountId, campaignId, asked: timeZone });
  return store().reports.hours(scope, {
    startDate,
    endDate,
    zone,
    page: 1,
    perPage: 168,
    orderBy: "weekday",
    order: "asc",
    download: false,
    ids: campaignId !== undefined ? { campaign_id: campaignId } : {},
  });
}
