// The account page's time zone in words: the zone with its offset now ("America/Sao_Paulo,
// UTC−03:00"), and what a save changed. A zone's days are kept from its start (report_zones:
// the next UTC midnight for a zone no account used yet); days before it read as UTC days until
// upkeep fills in those whose events are still held (docs/time-zones.md).
import { offsetLabel, UTC } from "@/server/core/time-zones";

/** "America/Sao_Paulo, UTC−03:00"; the name alone where this browser's tz database lacks the zone. */
export function zoneWithOffset(zone: string, now: Date = new Date()): string {
  try {
    return `${zone}, ${offsetLabel(now, zone)}`;
  } catch {
    return zone;
  }
}

const utcMinute = (moment: Date) => `${moment.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** What a saved zone means for the account's reports, in a sentence or two. */
export function savedZoneInWords(saved: { timeZone: string; changed: boolean; since: Date }, now: Date = new Date()): string {
  if (!saved.changed) return `${saved.timeZone} was already this account's time zone.`;
  if (saved.timeZone === UTC) return "Saved: reports, daily budgets and the daily export count UTC days.";
  const from = saved.since.getTime() > now.getTime() ? utcMinute(saved.since) : saved.since.toISOString().slice(0, 10);
  return `Saved: reports count days in ${saved.timeZone} from ${from} on; days before then stay UTC days until they are filled in.`;
}
