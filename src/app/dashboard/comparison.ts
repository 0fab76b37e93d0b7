// A figure against the same figure of the period before: the relative change, whether it is
// better or worse by the figure's good direction (store/metric-columns.ts), and how a card says
// it. Ratios (CTR, ROAS, rates) change relative to the ratio itself, never point-wise.

import { daysBetween } from "@/server/core/days";
import type { GoodDirection } from "@/server/store/metric-columns";
import type { Metrics } from "@/server/store/metrics";
import { formatChange } from "./figures";

export type Direction = "up" | "down" | "flat";
/** A change read against the figure's good direction: better, worse, or neither (spend, a flat figure). */
export type Verdict = "better" | "worse" | "neutral";

/**
 * (current − previous) / previous, or null where no change can be told: the previous value
 * is 0 or null, or the current one is null.
 */
export function relativeChange(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  return (current - previous) / Math.abs(previous);
}

export interface Change {
  /** "+12.50%", "−3.00%", "0.00%", or "—" where no change can be told. */
  text: string;
  direction: Direction | null;
  verdict: Verdict | null;
  /** What a screen reader says instead of the arrow and the colour: "up 12.50%, worse". */
  words: string;
}

/** A change with its direction and, by the figure's good direction, whether it is better or worse. */
export function describeChange(change: number | null, good: GoodDirection = "neutral"): Change {
  if (change === null) return { text: "—", direction: null, verdict: null, words: "no comparison: nothing in the period before" };
  const text = formatChange(change);
  const rounded = Math.round(change * 10_000);
  const direction: Direction = rounded > 0 ? "up" : rounded < 0 ? "down" : "flat";
  const verdict: Verdict = direction === "flat" || good === "neutral" ? "neutral" : direction === good ? "better" : "worse";
  const moved = direction === "flat" ? "unchanged" : `${direction} ${text.slice(1)}`;
  return { text, direction, verdict, words: verdict === "neutral" ? moved : `${moved}, ${verdict}` };
}

/** A change that cannot be told fairly: the period before is partly before the start. */
export const notComparable: Change = {
  text: "not comparable",
  direction: null,
  verdict: null,
  words: "not comparable: the period before is partly before the start",
};

/** "2026-10-01 – 2026-10-30". */
export const periodName = (range: { startDate: string; endDate: string }) => `${range.startDate} – ${range.endDate}`;

/**
 * How much of the period before the figures could have run in: all its days, or only those from
 * `started` on (the campaign's start, or the first day with any figure). Null when it ran in all.
 */
export function periodCoverage(previous: { startDate: string; endDate: string }, started: string | null): { ran: number; days: number } | null {
  const days = daysBetween(previous.startDate, previous.endDate) + 1;
  if (started === null || started <= previous.startDate) return null;
  return { ran: Math.max(0, daysBetween(started, previous.endDate) + 1), days };
}

/** The first day with any figure in either period, oldest first: where the account's figures start, as far as the two show. */
export function firstDayWithFigures(...periods: readonly (readonly Day[])[]): string | null {
  for (const daily of periods)
    for (const day of daily) if (day.impressions_total + day.views_total + day.clicks_total + day.conversions_total > 0 || day.ad_revenue > 0) return day.day;
  return null;
}

export type Day = Metrics & { day: string };
const CHARTED = ["impressions_total", "clicks_total", "ad_revenue", "sales_revenue", "sales_revenue_click", "sales_revenue_view"] as const;
type Charted = (typeof CHARTED)[number];
export type ChartRow = { day: string; previousDay: string | null } & Partial<Record<Charted | `previous_${Charted}`, number>>;

/** Each day of the range beside the day of the period before at the same place. */
export function alignByDay(daily: readonly Day[], previous: readonly Day[] | undefined): ChartRow[] {
  return daily.map((day, index) => {
    const before = previous?.[index];
    const row: ChartRow = { day: day.day, previousDay: before?.day ?? null };
    for (const field of CHARTED) {
      row[field] = day[field];
      if (before) row[`previous_${field}`] = before[field];
    }
    return row;
  });
}
