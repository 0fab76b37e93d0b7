import { describe, expect, it } from "vitest";
import { alignByDay, type Day, describeChange, firstDayWithFigures, periodCoverage, periodName, relativeChange } from "./comparison";

describe("a figure against the period before", () => {
  it("is the change relative to the previous value", () => {
    expect(relativeChange(1125, 1000)).toBeCloseTo(0.125, 10);
    expect(relativeChange(750, 1000)).toBeCloseTo(-0.25, 10);
    expect(relativeChange(5, 5)).toBe(0);
  });

  it("changes a ratio relative to the ratio itself, not by points", () => {
    // CTR 2% → 3%: +50%, not +1 point.
    expect(relativeChange(30 / 1000, 20 / 1000)).toBeCloseTo(0.5, 10);
  });

  it("tells no change where the period before had nothing or the figure is undefined", () => {
    expect(relativeChange(12, 0)).toBeNull();
    expect(relativeChange(12, null)).toBeNull();
    expect(relativeChange(null, 3)).toBeNull();
    expect(describeChange(null)).toMatchObject({ text: "—", direction: null });
  });

  it("reads with a sign, a direction and words", () => {
    expect(describeChange(0.125)).toEqual({ text: "+12.50%", direction: "up", verdict: "neutral", words: "up 12.50%" });
    expect(describeChange(-0.03)).toEqual({ text: "−3.00%", direction: "down", verdict: "neutral", words: "down 3.00%" });
    expect(describeChange(0.00001)).toMatchObject({ direction: "flat", words: "unchanged" });
    expect(periodName({ startDate: "2026-10-01", endDate: "2026-10-30" })).toBe("2026-10-01 – 2026-10-30");
  });

  it("says whether a change is better or worse by the figure's good direction, not by its direction alone", () => {
    // A cost (CPA, ACoS) going up is worse; sales going down are worse; spend is neither.
    expect(describeChange(0.125, "down")).toMatchObject({ direction: "up", verdict: "worse", words: "up 12.50%, worse" });
    expect(describeChange(-0.2, "down")).toMatchObject({ direction: "down", verdict: "better", words: "down 20.00%, better" });
    expect(describeChange(-0.2, "up")).toMatchObject({ verdict: "worse", words: "down 20.00%, worse" });
    expect(describeChange(0.2, "up")).toMatchObject({ verdict: "better", words: "up 20.00%, better" });
    expect(describeChange(0.2, "neutral")).toMatchObject({ verdict: "neutral", words: "up 20.00%" });
    expect(describeChange(0, "down")).toMatchObject({ verdict: "neutral", words: "unchanged" });
  });
});

describe("a period before that is partly before the start", () => {
  const previous = { startDate: "2026-10-01", endDate: "2026-10-30" };
  it("counts the days of the period before from the start on", () => {
    expect(periodCoverage(previous, "2026-10-21")).toEqual({ ran: 10, days: 30 });
    expect(periodCoverage(previous, "2026-11-05")).toEqual({ ran: 0, days: 30 });
    expect(periodCoverage(previous, "2026-10-01")).toBeNull();
    expect(periodCoverage(previous, "2026-09-01")).toBeNull();
    expect(periodCoverage(previous, null)).toBeNull();
  });

  it("finds the first day with any figure across the periods, oldest first", () => {
    const day = (date: string, impressions: number, spend = 0) =>
      ({ day: date, impressions_total: impressions, views_total: 0, clicks_total: 0, conversions_total: 0, ad_revenue: spend }) as unknown as Day;
    expect(firstDayWithFigures([day("2026-10-01", 0), day("2026-10-02", 3)], [day("2026-10-03", 5)])).toBe("2026-10-02");
    expect(firstDayWithFigures([day("2026-10-01", 0)], [day("2026-10-02", 0), day("2026-10-03", 0, 1.5)])).toBe("2026-10-03");
    expect(firstDayWithFigures([day("2026-10-01", 0)], [])).toBeNull();
  });
});

describe("the period before on a chart", () => {
  const day = (date: string, impressions: number) => ({ day: date, impressions_total: impressions }) as unknown as Day;
  it("stands each day beside the day at the same place in the period before", () => {
    const rows = alignByDay([day("2026-11-08", 5), day("2026-11-09", 7)], [day("2026-11-06", 1), day("2026-11-07", 2)]);
    expect(rows.map((r) => [r.day, r.previousDay, r.impressions_total, r.previous_impressions_total])).toEqual([
      ["2026-11-08", "2026-11-06", 5, 1],
      ["2026-11-09", "2026-11-07", 7, 2],
    ]);
    expect(alignByDay([day("2026-11-08", 5)], undefined)[0]).toMatchObject({ previousDay: null, impressions_total: 5 });
  });
});
