// Hand-written SQL: daily totals over a range for a scope (and, for the campaign page, one
// campaign), every local day of the range's zone present with zeros where nothing happened: the campaign page's daily rows
// and the dashboard's time series.

import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { addTotals, emptyTotals, type Metrics, metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportScope, ZonedRange } from "@/server/store/report-query";
import type { DayMetrics } from "@/server/store/report-rows";
import { type KeyedFigures, TOTALS_COLUMNS, totalsCtes } from "./rollup-totals.sql";

async function dailyRows(
  scope: ReportScope,
  range: ZonedRange,
  campaignId: string | null,
  given: readonly KeyedFigures[] | undefined,
): Promise<(TotalsRow & { day: string })[]> {
  const daily = sql`
  WITH ${totalsCtes("day", { range, scope, campaignId: campaignId ?? undefined }, given)}
  SELECT d.day::date::text AS day, ${TOTALS_COLUMNS}
    FROM generate_series(${range.startDate}::date, ${range.endDate}::date, interval '1 day') AS d(day)
    LEFT JOIN totals t ON t.key = d.day::date
    LEFT JOIN orders o ON o.key = d.day::date
   ORDER BY d.day`;
  return (await pgPool().query<TotalsRow & { day: string }>(daily)).rows;
}

/**
 * One row per day of the range, in scope; `campaignId` narrows it to one campaign. `given`: the
 * days' figures summed elsewhere instead of the report tables (totalsCtes).
 */
export async function dailyMetrics(
  scope: ReportScope,
  range: ZonedRange,
  campaignId: string | null = null,
  given?: readonly KeyedFigures[],
): Promise<DayMetrics[]> {
  return (await dailyRows(scope, range, campaignId, given)).map((r) => ({ day: r.day, ...metricsOf(r) }));
}

/**
 * The days of the range and their total, in scope. Every figure adds up over days, orders too
 * (an order has one day), so the total is exact. `given`: as for dailyMetrics.
 */
export async function metricsOverRange(
  scope: ReportScope,
  range: ZonedRange,
  given?: readonly KeyedFigures[],
): Promise<{ total: Metrics; daily: DayMetrics[] }> {
  const rows = await dailyRows(scope, range, null, given);
  const sum = emptyTotals();
  for (const r of rows) addTotals(sum, r);
  return { total: metricsOf(sum), daily: rows.map((r) => ({ day: r.day, ...metricsOf(r) })) };
}
