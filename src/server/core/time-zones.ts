// Local days in IANA time zones: which date and hour a moment is in a zone, and which UTC moments a
// local day spans. Every account reads, budgets and exports in its own zone (UTC until changed);
// days are still written YYYY-MM-DD (days.ts), and each one's zone is said beside it.
// Computed with Intl (the runtime's tz database), exactly for offsets that are not whole hours
// (Asia/Kolkata +5:30, Asia/Kathmandu +5:45) and for days of 23 and 25 hours.

import { addDays, DAY_MS, isIsoDay } from "./days";

export const UTC = "UTC";

/** The longest a zone name may be (the tz database's longest is 32 characters). */
export const MAX_ZONE_LENGTH = 64;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, format);
  }
  return format;
}

// ICU (the runtime's Intl) still resolves some zones to names the tz database has since renamed;
// Tally stores and offers the current ones, which Postgres's tz database knows too.
const CURRENT_NAMES: Readonly<Record<string, string>> = {
  "Africa/Asmera": "Africa/Asmara",
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

/**
 * The canonical name of an IANA zone ("america/sao_paulo" → "America/Sao_Paulo", "Asia/Calcutta"
 * → "Asia/Kolkata"), or null when the runtime's tz database does not know it. Offsets ("+05:30")
 * and abbreviations ("EST") are not zones: they have no daylight-saving rules, so a day in them is
 * not a day anyone lives.
 */
export function canonicalZone(name: string): string | null {
  if (name.length === 0 || name.length > MAX_ZONE_LENGTH || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  if (name.toUpperCase() === UTC || name === "Etc/UTC") return UTC;
  if (!name.includes("/")) return null;
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
    const current = CURRENT_NAMES[resolved] ?? resolved;
    return current.includes("/") || current === UTC ? current : null;
  } catch {
    return null;
  }
}

/** Whether `name` is a zone's canonical name. */
export const isZone = (name: string): boolean => canonicalZone(name) === name;

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function localParts(moment: Date | number, zone: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(moment))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** Minutes the zone is ahead of UTC at a moment (São Paulo: -180; Kathmandu: 345). */
export function offsetMinutes(moment: Date | number, zone: string): number {
  const ms = new Date(moment).getTime();
  const p = localParts(ms, zone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - (ms - (((ms % 1000) + 1000) % 1000))) / 60_000);
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** The local date of a moment in a zone, YYYY-MM-DD. */
export function localDay(moment: Date | number, zone: string): string {
  const p = localParts(moment, zone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** The local hour (0-23) of a moment in a zone. */
export const localHour = (moment: Date | number, zone: string): number => localParts(moment, zone).hour;

/** The weekday of a local date, 0 for Sunday to 6 for Saturday (as JavaScript and Postgres's dow count). */
export const weekday = (day: string): number => new Date(`${day}T00:00:00Z`).getUTCDay();

/**
 * The first moment of a local date in a zone: its local midnight, or, on a day whose midnight a
 * daylight-saving change skips, the first moment that exists.
 */
export function startOfLocalDay(day: string, zone: string): Date {
  if (!isIsoDay(day)) throw new RangeError(`not a day: ${day}`);
  const midnightAsUtc = Date.parse(`${day}T00:00:00Z`);
  // Offsets are within ±18 h: guess with the offset at the UTC midnight, then correct once
  // with the offset at the guess (twice covers a change between the two).
  let guess = midnightAsUtc - offsetMinutes(midnightAsUtc, zone) * 60_000;
  for (let i = 0; i < 2; i++) {
    const corrected = midnightAsUtc - offsetMinutes(guess, zone) * 60_000;
    if (corrected === guess) break;
    guess = corrected;
  }
  // Where midnight was skipped (clocks went forward at 00:00), the guess lands on the previous
  // day or later on this one: the day begins at the first moment whose local date is `day`.
  if (localDay(guess, zone) !== day) {
    let low = guess - DAY_MS;
    let high = guess + DAY_MS;
    while (localDay(low, zone) >= day) low -= DAY_MS;
    while (localDay(high, zone) < day) high += DAY_MS;
    // Binary search to the minute (every offset change falls on a whole minute).
    while (high - low > 60_000) {
      const middle = low + Math.floor((high - low) / 120_000) * 60_000;
      if (localDay(middle, zone) < day) low = middle;
      else high = middle;
    }
    return new Date(high);
  }
  return new Date(guess);
}

/** The UTC moments a range of local dates spans, inclusive: [start of first, start of the day after last). */
export function localRangeSpan(range: { startDate: string; endDate: string }, zone: string): { from: Date; to: Date } {
  return { from: startOfLocalDay(range.startDate, zone), to: startOfLocalDay(addDays(range.endDate, 1), zone) };
}

/** Hours in a local date (23 or 25 on daylight-saving changes, 23.5 on Lord Howe's). */
export function hoursInLocalDay(day: string, zone: string): number {
  const { from, to } = localRangeSpan({ startDate: day, endDate: day }, zone);
  return (to.getTime() - from.getTime()) / 3_600_000;
}

/** The local date `days` from today in a zone: daysFromLocalToday(-29, zone) begins "the last 30 days". */
export function daysFromLocalToday(days: number, zone: string, now: Date | number = Date.now()): string {
  return addDays(localDay(now, zone), days);
}

/** "UTC−03:00" for São Paulo now, "UTC+05:45" for Kathmandu: how a screen names a zone's offset. */
export function offsetLabel(moment: Date | number, zone: string): string {
  const minutes = offsetMinutes(moment, zone);
  const sign = minutes < 0 ? "−" : "+";
  const absolute = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/** Every zone the runtime knows, canonical names, UTC first. */
export function knownZones(): string[] {
  const names = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  const current = new Set(names.map((name) => canonicalZone(name)).filter((name): name is string => name !== null && name !== UTC));
  return [UTC, ...[...current].sort()];
}
