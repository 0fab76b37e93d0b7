import { describe, expect, it } from "vitest";
import { addDays, dayStart, daysBetween, daysFromToday, isIsoDay, previousRange, startOfUtcDay, utcDay } from "./days";

describe("UTC days", () => {
  it("are the UTC date of a moment, whatever the offset it was written with", () => {
    expect(utcDay(new Date("2026-11-25T23:59:59.999Z"))).toBe("2026-11-25");
    expect(utcDay(new Date("2026-11-25T22:30:00-03:00"))).toBe("2026-11-26");
    expect(startOfUtcDay(new Date("2026-11-25T13:14:15Z")).toISOString()).toBe("2026-11-25T00:00:00.000Z");
    expect(dayStart("2026-03-01").toISOString()).toBe("2026-03-01T00:00:00.000Z");
  });

  it("add across months, years and leap days", () => {
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-11-25", -29)).toBe("2026-10-27");
    expect(daysBetween("2026-10-27", "2026-11-25")).toBe(29);
    expect(daysBetween("2026-11-25", "2026-11-24")).toBe(-1);
    expect(daysFromToday(-1, new Date("2026-11-25T00:00:01Z"))).toBe("2026-11-24");
  });

  it("accept only real calendar days written YYYY-MM-DD", () => {
    expect(isIsoDay("2026-11-25")).toBe(true);
    expect(isIsoDay("2028-02-29")).toBe(true);
    for (const bad of ["2026-02-30", "2026-13-01", "2026-1-5", "25/11/2026", "2026-11-25T00:00:00Z", ""]) expect(isIsoDay(bad), bad).toBe(false);
  });

  it("compare a range with as many days just before it", () => {
    expect(previousRange({ startDate: "2026-10-31", endDate: "2026-11-29" })).toEqual({ startDate: "2026-10-01", endDate: "2026-10-30" });
    expect(previousRange({ startDate: "2026-03-01", endDate: "2026-03-01" })).toEqual({ startDate: "2026-02-28", endDate: "2026-02-28" });
    expect(previousRange({ startDate: "2028-03-01", endDate: "2028-03-07" })).toEqual({ startDate: "2028-02-23", endDate: "2028-02-29" });
  });
});
