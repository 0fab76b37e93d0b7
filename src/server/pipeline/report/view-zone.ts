// The zone a dashboard view reads its days in: a member's, their account's (accounts.time_zone);
// staff's, the one they chose, else the account's they look at (an account, its campaigns, one
// campaign), else the operator's default (TALLY_DEFAULT_TIME_ZONE, UTC when unset). Only zones
// the report tables are kept in (report_zones) can be read in: a default the tables do not keep
// yet reads in UTC, and a zone asked for that they do not keep is refused, naming those they do.
import { operatorTimeZone } from "@/server/accounts/account-time-zone";
import { type Actor, assertMayAccess, isOperator } from "@/server/accounts/actor";
import { wholeViewer } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { canonicalZone, UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { accountTimeZoneOf } from "./report-scope.sql";
import { campaignZoneQuery } from "./view-zone.sql";

/** The zones the store reads reports in exactly, UTC first (either store: those report_zones keeps). */
export async function keptZones(): Promise<string[]> {
  return (await store().reports.readableZones()).map((readable) => readable.zone);
}

async function accountZone(accountId: string): Promise<string | null> {
  const { rows } = await pgPool().query<{ time_zone: string }>(accountTimeZoneOf(accountId));
  return rows[0]?.time_zone ?? null;
}

/** The zone a view opens in when none is asked for (see the file's comment). */
async function defaultZone(actor: Actor, accountId: string | undefined, campaignId: string | undefined): Promise<string> {
  const viewer = isOperator(actor) ? null : wholeViewer(actor);
  if (viewer?.role === "member") return (await accountZone(viewer.accountId)) ?? UTC;
  if (accountId) {
    assertMayAccess(actor, accountId, "account");
    return (await accountZone(accountId)) ?? operatorTimeZone();
  }
  if (campaignId) {
    const { rows } = await pgPool().query<{ advertiser_id: string; time_zone: string }>(campaignZoneQuery(campaignId));
    if (rows[0]) {
      assertMayAccess(actor, rows[0].advertiser_id, "campaign");
      return rows[0].time_zone;
    }
  }
  return operatorTimeZone();
}

/**
 * The zone a view reads in: `asked` when the report tables keep it (any name the tz database
 * knows for it, answered canonical), else the view's default (see the file's comment).
 */
export async function viewZone({
  actor,
  accountId,
  campaignId,
  asked,
}: {
  actor: Actor;
  accountId?: string;
  campaignId?: string;
  asked?: string;
}): Promise<{ zone: string; kept: string[] }> {
  const kept = await keptZones();
  if (asked !== undefined) {
    const zone = canonicalZone(asked);
    if (zone === null || !kept.includes(zone))
      throw new TallyError("bad_request", `${asked.slice(0, 64)} is not a zone the reports are kept in (${kept.join(", ")})`);
    return { zone, kept };
  }
  const zone = await defaultZone(actor, accountId, campaignId);
  return { zone: kept.includes(zone) ? zone : UTC, kept };
}
