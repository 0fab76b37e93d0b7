// The heatmap of hours' arithmetic, apart from its markup (hours-heatmap.tsx): which metrics it
// offers, each cell's shade on a scale from the busiest cell, the words a cell is read out with,
// and the legend's steps.

import { type HourRow, WEEKDAYS } from "@/server/store/hours-report";
import { type Audience, type MetricField, metricFor } from "@/server/store/metric-columns";
import { formatFigure } from "./figures";

export const HEATMAP_METRICS = [
  "impressions_total",
  "clicks_total",
  "ctr",
  "conversions_total",
  "sales_revenue",
  "roas",
] as const satisfies readonly MetricField[];
export type HeatmapMetric = (typeof HEATMAP_METRICS)[number];

/** Shades besides the blank of an empty cell: few enough to tell apart by eye. */
export const SHADES = 5;

/** A cell's figure of the metric: null (nothing to divide by) reads as no activity. */
const figureOf = (row: HourRow, metric: HeatmapMetric): number => row[metric] ?? 0;

/** The busiest cell's figure, the top of the scale. */
export const scaleTop = (rows: readonly HourRow[], metric: HeatmapMetric): number => rows.reduce((top, row) => Math.max(top, figureOf(row, metric)), 0);

/** A figure's shade from 0 (nothing) to SHADES (the busiest): each shade covers an equal part of the scale up to `top`. */
export function shadeOf(value: number | null, top: number): number {
  if (value === null || !(value > 0) || !(top > 0)) return 0;
  return Math.min(SHADES, Math.max(1, Math.ceil((value / top) * SHADES)));
}

/** "14:00–15:00": an hour of the day as the span it covers. */
export const hourSpan = (hour: number) => `${String(hour).padStart(2, "0")}:00–${String(hour + 1).padStart(2, "0")}:00`;

/** A figure in words: counts after their number ("1,234 clicks"), the rest after their name ("CTR 2.50%"). */
export function figureWords(value: number | null, metric: HeatmapMetric, audience: Audience, currency: string | null): string {
  const { label, format } = metricFor(metric, audience);
  const shown = formatFigure(value, format, currency);
  return format === "count" ? `${shown} ${label.toLowerCase()}` : `${label} ${shown}`;
}

/** What a cell is read out as, and its title: "Tuesday 14:00–15:00: 1,234 clicks". */
export const cellLabel = (row: HourRow, metric: HeatmapMetric, audience: Audience, currency: string | null) =>
  `${WEEKDAYS[row.weekday]} ${hourSpan(row.hour)}: ${figureWords(row[metric], metric, audience, currency)}`;

/** The legend: each shade with the figures it covers, from the lowest above nothing to the top. */
export function legendSteps(top: number): { shade: number; upTo: number }[] {
  if (!(top > 0)) return [];
  return Array.from({ length: SHADES }, (_, i) => ({ shade: i + 1, upTo: (top * (i + 1)) / SHADES }));
}

/** The rows as the grid draws them: one array of 24 per weekday, Sunday first. */
export function byWeekday(rows: readonly HourRow[]): HourRow[][] {
  const days: HourRow[][] = WEEKDAYS.map(() => []);
  for (const row of rows) days[row.weekday]?.push(row);
  for (const day of days) day.sort((a, b) => a.hour - b.hour);
  return days;
}
