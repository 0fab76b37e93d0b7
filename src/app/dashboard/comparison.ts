// A figure against the same figure of the period before: the relative change, and how a card
// says it. Ratios (CTR, ROAS, rates) change relative to the ratio itself, never point-wise.

import type { Metrics } from "@/server/store/metrics";

export type Direction = "up" | "down" | "flat";

/**
 * (current − previous) / previous, or null where no change can be told: the previous value
 * is 0 or null, or the current one is null.
 */
export function relativeChange(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null || previous === 0) return null;
  return (current - previous) / Math.abs(previous);
}

const signedPercent = new Intl.NumberFormat("en", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: "exceptZero" });

/** "+12.5%", "−3.0%", "0.0%", or "—" where no change can be told; with the direction and words for screen readers. */
export function describeChange(change: number | null): { text: string; direction: Direction | null; words: string } {
  if (change === null) return { text: "—", direction: null, words: "no comparison: nothing in the period before" };
  const text = signedPercent.format(change).replace("-", "−");
  const rounded = Math.round(change * 1000);
  const direction: Direction = rounded > 0 ? "up" : rounded < 0 ? "down" : "flat";
  const words = direction === "flat" ? "unchanged" : `${direction} ${text.slice(1)}`;
  return { text, direction, words };
}

/** "vs 2026-10-01 – 2026-10-30". */
export const comparedWith = (range: { startDate: string; endDate: string }) => `vs ${range.startDate} – ${range.endDate}`;

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
