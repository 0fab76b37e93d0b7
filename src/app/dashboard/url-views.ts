// What a view in the address means: the range, the sort and the columns read from search
// params, each falling back to its default when the address holds something else (a hand-edited
// or outdated link opens the default view rather than an error).
import { daysBetween, isIsoDay } from "@/server/core/days";
import { canonicalZone, daysFromLocalToday } from "@/server/core/time-zones";
import { MAX_RANGE_DAYS } from "@/server/store/report-query";

export type Range = { startDate: string; endDate: string };
export type Sort = { id: string; descending: boolean };

/**
 * The last `days` local dates in a zone, today included (today begins at the zone's midnight): the
 * presets, and the view an address without a range opens.
 */
export const lastDays = (days: number, zone: string, now: Date | number = Date.now()): Range => ({
  startDate: daysFromLocalToday(-(days - 1), zone, now),
  endDate: daysFromLocalToday(0, zone, now),
});

/**
 * The zone the address asks for (`tz=America/Sao_Paulo`), canonical, when the report tables keep
 * it; null when it asks for none, or for one they do not keep (the view's own zone then).
 */
export function readZone(asked: string | null, kept: readonly string[]): string | null {
  const zone = asked ? canonicalZone(asked) : null;
  return zone !== null && kept.includes(zone) ? zone : null;
}

/** The range a view shows, and when the address asked for another: what it asked, and why it is not shown. */
export interface RangeRead {
  range: Range;
  problem: string | null;
}

// A hand-edited address may hold anything: quote at most this much of it back.
const quoted = (value: string) => `“${value.length > 24 ? `${value.slice(0, 24)}…` : value}”`;

/** Why `from` and `to` are not a range a view shows, in words; null when they are one (or absent, the default view). */
function rangeProblem(from: string | null, to: string | null): string | null {
  if (from === null && to === null) return null;
  if (from === null) return `The address gives an end day (${quoted(to ?? "")}) but no start day`;
  if (to === null) return `The address gives a start day (${quoted(from)}) but no end day`;
  for (const [which, value] of [
    ["start", from],
    ["end", to],
  ] as const) {
    if (!isIsoDay(value)) return `The ${which} day asked for, ${quoted(value)}, is not a day (YYYY-MM-DD)`;
  }
  if (from > to) return `The range asked for, ${from} to ${to}, ends before it starts`;
  const days = daysBetween(from, to) + 1;
  if (days > MAX_RANGE_DAYS)
    return `The range asked for, ${from} to ${to}, spans ${days.toLocaleString("en")} days, more than the ${MAX_RANGE_DAYS} a view shows`;
  return null;
}

/**
 * `from` and `to` when both are real days in order and at most MAX_RANGE_DAYS apart; else the
 * fallback, with a sentence saying what was asked and what is shown instead (a range silently
 * replaced reads as figures of the wrong days).
 */
export function readRange(asked: { from: string | null; to: string | null }, fallback: Range): RangeRead {
  // An empty parameter (`from=`) asks for nothing, as one left out.
  const from = asked.from || null;
  const to = asked.to || null;
  const problem = rangeProblem(from, to);
  if (problem) return { range: fallback, problem: `${problem}: showing ${fallback.startDate} to ${fallback.endDate} instead.` };
  return from && to ? { range: { startDate: from, endDate: to }, problem: null } : { range: fallback, problem: null };
}

/** `sort=field` (ascending) or `sort=-field` (descending), for a field of the table only. */
export function sortFromParam(value: string | null, fields: readonly string[], fallback: Sort): Sort {
  if (!value) return fallback;
  const descending = value.startsWith("-");
  const id = descending ? value.slice(1) : value;
  return fields.includes(id) ? { id, descending } : fallback;
}

export const sortToParam = (sort: Sort) => `${sort.descending ? "-" : ""}${sort.id}`;

/** `cols=a,b,c`: the table's columns named, in the table's order; none known, the fallback. */
export function columnsFromParam(value: string | null, fields: readonly string[], fallback: readonly string[]): string[] {
  const named = new Set((value ?? "").split(",").filter(Boolean));
  const chosen = fields.filter((field) => named.has(field));
  return chosen.length > 0 ? chosen : [...fallback];
}
