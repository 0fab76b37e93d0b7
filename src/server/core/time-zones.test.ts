import { describe, expect, it } from "vitest";
import {
  canonicalZone,
  daysFromLocalToday,
  hoursInLocalDay,
  knownZones,
  localDay,
  localHour,
  localRangeSpan,
  offsetLabel,
  offsetMinutes,
  startOfLocalDay,
  weekday,
} from "./time-zones";

// Local midnights worked out from the zones' rules (tz database 2025), not from the code.
const MIDNIGHTS: Array<{ zone: string; day: string; utc: string; why: string }> = [
  { zone: "America/Sao_Paulo", day: "2026-12-02", utc: "2026-12-02T03:00:00.000Z", why: "UTC−3, no daylight saving since 2019" },
  { zone: "Asia/Kolkata", day: "2026-12-02", utc: "2026-12-01T18:30:00.000Z", why: "UTC+5:30" },
  { zone: "Asia/Kathmandu", day: "2026-12-02", utc: "2026-12-01T18:15:00.000Z", why: "UTC+5:45" },
  { zone: "America/New_York", day: "2026-03-08", utc: "2026-03-08T05:00:00.000Z", why: "EST, the day clocks go forward at 02:00" },
  { zone: "America/New_York", day: "2026-03-09", utc: "2026-03-09T04:00:00.000Z", why: "EDT from the day before's 02:00" },
  { zone: "America/New_York", day: "2026-11-01", utc: "2026-11-01T04:00:00.000Z", why: "EDT, the day clocks go back at 02:00" },
  { zone: "America/New_York", day: "2026-11-02", utc: "2026-11-02T05:00:00.000Z", why: "EST again" },
  { zone: "Australia/Lord_Howe", day: "2026-07-01", utc: "2026-06-30T13:30:00.000Z", why: "UTC+10:30 in the southern winter" },
  { zone: "Australia/Lord_Howe", day: "2026-12-02", utc: "2026-12-01T13:00:00.000Z", why: "UTC+11 with its half-hour daylight saving" },
  { zone: "UTC", day: "2026-12-02", utc: "2026-12-02T00:00:00.000Z", why: "UTC" },
];

describe("local days", () => {
  it.each(MIDNIGHTS)("begin at $utc for $day in $zone ($why)", ({ zone, day, utc }) => {
    expect(startOfLocalDay(day, zone).toISOString()).toBe(utc);
    const midnight = Date.parse(utc);
    expect(localDay(midnight, zone)).toBe(day);
    expect(localDay(midnight - 1, zone)).not.toBe(day);
    expect(localHour(midnight, zone)).toBe(0);
    expect(localHour(midnight - 1, zone)).toBe(23);
  });

  it("are 23 and 25 hours long on daylight-saving changes, 23.5 and 24.5 on Lord Howe's", () => {
    expect(hoursInLocalDay("2026-03-08", "America/New_York")).toBe(23);
    expect(hoursInLocalDay("2026-11-01", "America/New_York")).toBe(25);
    expect(hoursInLocalDay("2026-12-02", "America/New_York")).toBe(24);
    // Lord Howe goes to +11 on the first Sunday of October at 02:00 and back on the first Sunday of April.
    expect(hoursInLocalDay("2026-10-04", "Australia/Lord_Howe")).toBe(23.5);
    expect(hoursInLocalDay("2026-04-05", "Australia/Lord_Howe")).toBe(24.5);
  });

  it("begin at the first moment that exists where a change skips midnight", () => {
    // Chile (America/Santiago) moves clocks forward at 24:00 on the first Saturday of September: 2026-09-06 starts at 01:00 local.
    const start = startOfLocalDay("2026-09-06", "America/Santiago");
    expect(localDay(start, "America/Santiago")).toBe("2026-09-06");
    expect(localDay(start.getTime() - 1, "America/Santiago")).toBe("2026-09-05");
    expect(localHour(start, "America/Santiago")).toBe(1);
  });

  it("span a range of local dates from the first's midnight to the midnight after the last", () => {
    const { from, to } = localRangeSpan({ startDate: "2026-11-01", endDate: "2026-11-07" }, "America/New_York");
    expect(from.toISOString()).toBe("2026-11-01T04:00:00.000Z");
    expect(to.toISOString()).toBe("2026-11-08T05:00:00.000Z");
    expect((to.getTime() - from.getTime()) / 3_600_000).toBe(7 * 24 + 1);
  });

  it("count today and the days before it in the zone", () => {
    const now = Date.parse("2026-12-02T02:00:00Z");
    expect(daysFromLocalToday(0, "America/Sao_Paulo", now)).toBe("2026-12-01");
    expect(daysFromLocalToday(0, "UTC", now)).toBe("2026-12-02");
    expect(daysFromLocalToday(-29, "Asia/Kolkata", now)).toBe("2026-11-03");
  });

  it("name weekdays Sunday 0 to Saturday 6", () => {
    expect(weekday("2026-12-06")).toBe(0);
    expect(weekday("2026-12-05")).toBe(6);
  });
});

describe("zone names", () => {
  it("are canonical IANA names, case folded; offsets, abbreviations and odd strings are not zones", () => {
    expect(canonicalZone("america/sao_paulo")).toBe("America/Sao_Paulo");
    expect(canonicalZone("UTC")).toBe("UTC");
    expect(canonicalZone("utc")).toBe("UTC");
    // The current names, whatever the runtime's ICU resolves them to.
    expect(canonicalZone("Asia/Kolkata")).toBe("Asia/Kolkata");
    expect(canonicalZone("asia/calcutta")).toBe("Asia/Kolkata");
    expect(canonicalZone("Asia/Kathmandu")).toBe("Asia/Kathmandu");
    expect(canonicalZone("Europe/Kiev")).toBe("Europe/Kyiv");
    expect(canonicalZone("US/Eastern")).toBe("America/New_York");
    for (const bad of ["", "+05:30", "EST", "GMT+3", "Mars/Olympus", "America/../etc", "a".repeat(65), "Asia/Kolkata\n", "Europe/London;DROP"]) {
      expect(canonicalZone(bad), bad).toBeNull();
    }
  });

  it("offsets read as a screen names them", () => {
    const now = Date.parse("2026-12-02T12:00:00Z");
    expect(offsetMinutes(now, "Asia/Kathmandu")).toBe(345);
    expect(offsetLabel(now, "America/Sao_Paulo")).toBe("UTC−03:00");
    expect(offsetLabel(now, "Asia/Kathmandu")).toBe("UTC+05:45");
  });

  it("lists every zone the runtime knows, each canonical", () => {
    const zones = knownZones();
    expect(zones[0]).toBe("UTC");
    expect(zones).toContain("America/Sao_Paulo");
    expect(zones).toContain("Australia/Lord_Howe");
    expect(zones).toContain("Asia/Kolkata");
    expect(zones).not.toContain("Asia/Calcutta");
    expect(new Set(zones).size).toBe(zones.length);
    expect(zones.length).toBeGreaterThan(300);
  });
});
