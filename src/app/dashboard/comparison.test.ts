import { describe, expect, it } from "vitest";
import { alignByDay, comparedWith, type Day, describeChange, relativeChange } from "./comparison";

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
    expect(describeChange(0.125)).toEqual({ text: "+12.5%", direction: "up", words: "up 12.5%" });
    expect(describeChange(-0.03)).toEqual({ text: "−3.0%", direction: "down", words: "down 3.0%" });
    expect(describeChange(0.00001)).toMatchObject({ direction: "flat", words: "unchanged" });
    expect(comparedWith({ startDate: "2026-10-01", endDate: "2026-10-30" })).toBe("vs 2026-10-01 – 2026-10-30");
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
