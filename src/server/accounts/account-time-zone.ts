// An account's time zone: the IANA zone its reports, budgets and exports count days in, UTC until
// changed (docs/time-zones.md). Staff and the account's own admins change it; the change is logged
// and the zone kept in report_zones in the same transaction, so the writers add every batch to it
// from the zone's start on. The operator's default zone (TALLY_DEFAULT_TIME_ZONE), which staff
// views read in, is kept there at every server's and worker's start.
import { env } from "@/env";
import { changedFields, recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { canonicalZone, knownZones, offsetLabel, UTC } from "@/server/core/time-zones";
import { db } from "@/server/db/client";
import { countReportZones, databaseKnowsZone, type KeptZone, keepReportZone, lockAccountZone } from "./account-time-zone.sql";
import { type Actor, assertMayChange } from "./actor";

/** A zone named as a person would, in the problem a bad name gets. */
export const ZONE_EXAMPLE = "America/Sao_Paulo";

/** The canonical name of `name`, or a TallyError on the field timeZone saying how a zone is written. */
export function accountZoneOf(name: string): string {
  const zone = canonicalZone(name.trim());
  if (zone === null) throw TallyError.field("timeZone", `is not a time zone: name one as Area/City, such as ${ZONE_EXAMPLE}, or UTC`);
  return zone;
}

/** The zone staff views read days in when they name none (TALLY_DEFAULT_TIME_ZONE, checked at start; UTC unless set). */
export const operatorTimeZone = (): string => env().TALLY_DEFAULT_TIME_ZONE;

/** The zones a picker offers, UTC first, each with its offset now ("UTC−03:00"). */
export function timeZoneChoices(now: Date = new Date()): { zone: string; offset: string }[] {
  return knownZones().map((zone) => ({ zone, offset: offsetLabel(now, zone) }));
}

export interface TimeZoneChange {
  accountId: string;
  accountName: string;
  timeZone: string;
  previous: string;
  /** Its offset now, "UTC−03:00". */
  offset: string;
  /** Whether the zone differs from the one the account had (an unchanged zone logs nothing). */
  changed: boolean;
  /** From when the report tables hold days in the zone; days before read as UTC days (until upkeep fills them in). */
  since: Date;
  /** From when they hold its hours. */
  hoursSince: Date;
}

function unknownToDatabase(zone: string): TallyError {
  return TallyError.field("timeZone", `is not in the database's time zone data yet (${zone}): update Postgres's tz data, or choose a zone it knows`);
}

function refusedByCap(max: number): TallyError {
  return TallyError.field(
    "timeZone",
    `cannot be a new zone now: reports are kept in at most ${max} time zones (TALLY_REPORT_ZONES_MAX) and all are in use; choose a zone other accounts already use, or ask Tally's operator`,
  );
}

/**
 * Sets the zone an account reads, budgets and exports in. Staff, the operator and the account's
 * admins may; a viewer is told to ask an admin, another account's id answers as not found. The
 * zone is stored by its canonical name. A zone not yet kept in report_zones is added (from the next
 * UTC midnight) unless TALLY_REPORT_ZONES_MAX are kept already; one already kept is always allowed.
 */
export async function setAccountTimeZone({ actor, accountId, timeZone }: { actor: Actor; accountId: string; timeZone: string }): Promise<TimeZoneChange> {
  assertMayChange(actor, accountId, "account");
  const zone = accountZoneOf(timeZone);
  const max = env().TALLY_REPORT_ZONES_MAX;
  return db.$transaction(async (tx) => {
    const [account] = await lockAccountZone(tx, accountId);
    if (!account) throw new TallyError("not_found", "no such account");
    if (!(await databaseKnowsZone(tx, zone))) throw unknownToDatabase(zone);
    const [kept] = await keepReportZone(tx, zone, max);
    if (!kept) throw refusedByCap(max);
    const change = changedFields({ timeZone: account.time_zone }, { timeZone: zone });
    if (change) {
      await tx.account.update({ where: { id: accountId }, data: { timeZone: zone } });
      await recordActivity(tx, actor, { action: "account.time_zone.set", subject: `time zone of ${account.name}`, accountId, ...change });
    }
    return {
      accountId,
      accountName: account.name,
      timeZone: zone,
      previous: account.time_zone,
      offset: offsetLabel(new Date(), zone),
      changed: change !== null,
      since: kept.since,
      hoursSince: kept.hours_since,
    };
  });
}

/**
 * Keeps the operator's default zone in report_zones, whatever the cap (the operator sets both):
 * called at every server's and worker's start. UTC is always kept (the migration's row).
 */
export async function keepOperatorTimeZone(): Promise<KeptZone | null> {
  const zone = operatorTimeZone();
  if (zone === UTC) return null;
  const [kept] = await db.$transaction(async (tx) => {
    if (!(await databaseKnowsZone(tx, zone))) throw unknownToDatabase(zone);
    return keepReportZone(tx, zone, null);
  });
  return kept ?? null;
}

/** How many zones the report tables are kept in, UTC included. */
export const reportZoneCount = (): Promise<number> => countReportZones(db);
