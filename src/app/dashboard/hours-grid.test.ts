import { describe, expect, it } from "vitest";
import { type HourRow, WEEKDAYS } from "@/server/store/hours-report";
import { emptyTotals, metricsOf } from "@/server/store/metrics";
import { byWeekday, cellLabel, hourSpan, legendSteps, SHADES, scaleTop, shadeOf } from "./hours-grid";

const cell = (weekday: number, hour: number, sums: Partial<ReturnType<typeof emptyTotals>> = {}): HourRow => ({
  weekday,
  hour,
  ...metricsOf({ ...emptyTotals(), ...sums }),
});
const week = (): HourRow[] => WEEKDAYS.flatMap((_, weekday) => Array.from({ length: 24 }, (_, hour) => cell(weekday, hour)));

describe("the heatmap's shades", () => {
  it("leaves nothing blank, gives the busiest cell the darkest shade and splits the scale evenly", () => {
    expect(shadeOf(0, 100)).toBe(0);
    expect(shadeOf(null, 100)).toBe(0);
    expect(shadeOf(100, 100)).toBe(SHADES);
    expect(shadeOf(1, 100)).toBe(1);
    expect(shadeOf(20, 100)).toBe(1);
    expect(shadeOf(21, 100)).toBe(2);
    expect(shadeOf(60, 100)).toBe(3);
    expect(shadeOf(99, 100)).toBe(5);
  });

  it("has no scale, and so no shade, for a week without figures", () => {
    const rows = week();
    expect(scaleTop(rows, "clicks_total")).toBe(0);
    expect(rows.map((row) => shadeOf(row.clicks_total, 0)).every((shade) => shade === 0)).toBe(true);
    expect(legendSteps(0)).toEqual([]);
  });

  it("takes the top of the scale from the busiest cell of the chosen metric, ratios as they are", () => {
    const rows = week();
    rows[2 * 24 + 14] = cell(2, 14, { impressions: 400, clicks: 8 });
    rows[5 * 24 + 9] = cell(5, 9, { impressions: 10, clicks: 2 });
    expect(scaleTop(rows, "clicks_total")).toBe(8);
    // CTR: 2 of 10 beats 8 of 400.
    expect(scaleTop(rows, "ctr")).toBe(0.2);
    expect(shadeOf(rows[2 * 24 + 14]!.ctr, 0.2)).toBe(1);
    expect(legendSteps(8)).toEqual([1.6, 3.2, 4.8, 6.4, 8].map((upTo, i) => ({ shade: i + 1, upTo: expect.closeTo(upTo, 10) })));
  });
});

describe("the heatmap's words", () => {
  it("names each cell's weekday, hour span and figure as a reader says them", () => {
    const row = cell(2, 14, { impressions: 5000, clicks: 1234, sales_revenue_micros: 12_500_000, spend_micros: 5_000_000 });
    expect(cellLabel(row, "clicks_total", "advertiser", null)).toBe("Tuesday 14:00–15:00: 1,234 clicks");
    expect(cellLabel(row, "ctr", "advertiser", null)).toBe("Tuesday 14:00–15:00: CTR 24.68%");
    expect(cellLabel(row, "sales_revenue", "advertiser", "EUR")).toBe("Tuesday 14:00–15:00: Sales revenue EUR 12.50");
    expect(cellLabel(row, "roas", "advertiser", null)).toBe("Tuesday 14:00–15:00: ROAS 2.50×");
    expect(cellLabel(cell(0, 23), "roas", "advertiser", null)).toBe("Sunday 23:00–24:00: ROAS 0.00×");
    expect(hourSpan(0)).toBe("00:00–01:00");
  });

  it("lays the rows out as seven weekdays of 24 hours, whatever order they came in", () => {
    const days = byWeekday(week().reverse());
    expect(days).toHaveLength(7);
    expect(days.map((day) => day.map((row) => row.hour))).toEqual(WEEKDAYS.map(() => Array.from({ length: 24 }, (_, hour) => hour)));
    expect(days[6]![0]).toMatchObject({ weekday: 6, hour: 0 });
  });
});
