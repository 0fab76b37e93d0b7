// The dashboard's heatmap of hours (dayparting): an account's figures, or one campaign's, by local
// weekday and hour over a range, through the same store read as GET /report/hours.
import { type Actor, isOperator } from "@/server/accounts/actor";
import { wholeViewer } from "@/server/accounts/sessions";
import { UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import type { HoursReport } from "@/server/store/hours-report";
import { timeZoneOfAccount } from "./account-hours.sql";
import { reportScopeOf } from "./report-scope";

interface HoursRequest {
  actor: Actor;
  accountId?: string;
  campaignId?: string;
  /** Local dates in the zone, inclusive. */
  startDate: string;
  endDate: string;
  /** The zone to read in; absent, the account's own (the viewer's account's, else UTC). */
  timeZone?: string;
}

/** The zone an account reads in; UTC for staff's view of every account. */
async function zoneOf(accountId: string | null): Promise<string> {
  if (accountId === null) return UTC;
  const { rows } = await pgPool().query<{ time_zone: string }>(timeZoneOfAccount(accountId));
  return rows[0]?.time_zone ?? UTC;
}

/**
 * The 168 cells of the range in scope (one campaign's when `campaignId`; a campaign out of scope
 * reads as an empty week, as the route answers), the zone they are local to and from when its hours count.
 */
export async function accountHours({ actor, accountId, campaignId, startDate, endDate, timeZone }: HoursRequest): Promise<HoursReport> {
  const scope = await reportScopeOf({ actor, accountId });
  const viewerAccount = isOperator(actor) ? null : (wholeViewer(actor)?.accountId ?? null);
  const zone = timeZone ?? (await zoneOf(accountId ?? viewerAccount));
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
