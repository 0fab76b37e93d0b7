// Days are UTC calendar days, written YYYY-MM-DD, everywhere in Tally: report ranges, rollup rows,
// budgets, export batches and file keys. One module, so that no caller slices an ISO string or
// adds milliseconds on its own, and a day never depends on the server's time zone.

export const DAY_MS = 86_400_000;

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day of a moment: 2026-11-25T23:59:59Z → "2026-11-25". */
export function utcDay(moment: Date | number = Date.now()): string {
  return new Date(moment).toISOString().slice(0, 10);
}

/** The first instant of a UTC day: "2026-11-25" → 2026-11-25T00:00:00.000Z. */
export function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

/** The first instant of the UTC day a moment falls in. */
export function startOfUtcDay(moment: Date | number): Date {
  return new Date(Math.floor(new Date(moment).getTime() / DAY_MS) * DAY_MS);
}

/** The day `days` after (or, negative, before) `day`. */
export function addDays(day: string, days: number): string {
  return utcDay(dayStart(day).getTime() + days * DAY_MS);
}

/** The UTC day `days` before or after today: daysFromToday(-29) is the first day of "the last 30 days". */
export function daysFromToday(days: number, now: Date | number = Date.now()): string {
  return utcDay(new Date(now).getTime() + days * DAY_MS);
}

/** Whether `value` is a real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isIsoDay(value: string): boolean {
  if (!ISO_DAY.test(value)) return false;
  const start = dayStart(value);
  return !Number.isNaN(start.getTime()) && utcDay(start) === value;
}

/** Whole days from `first` to `last` (0 for the same day, negative when `last` comes first). */
export function daysBetween(first: string, last: string): number {
  return Math.round((dayStart(last).getTime() - dayStart(first).getTime()) / DAY_MS);
}

/**
 * The period a range is compared with: as many days, ending the day before it starts
 * (2026-10-31 – 2026-11-29 → 2026-10-01 – 2026-10-30).
 */
export function previousRange({ startDate, endDate }: { startDate: string; endDate: string }): { startDate: string; endDate: string } {
  const length = daysBetween(startDate, endDate) + 1;
  return { startDate: addDays(startDate, -length), endDate: addDays(startDate, -1) };
}
