import { describe, expect, it } from "vitest";
import { parseReportQuery, type ReportQuerySpec, type ReportZones, reportZones, UTC_ONLY, utcDaysBeforeOf } from "./report-query";

const spec: ReportQuerySpec<"impressions" | "clicks" | "name"> = { ids: ["advertiser_id", "campaign_id"], orderBy: ["impressions", "clicks", "name"] };
const NOW = new Date("2026-11-22T15:00:00Z");
const parse = (query: string, zones: ReportZones = UTC_ONLY) => parseReportQuery(new URLSearchParams(query), spec, zones, NOW);
// UTC, São Paulo (kept since 2026-11-15) and Kathmandu (kept since 2026-11-20).
const KEPT = [
  { zone: "UTC", utcDaysBefore: null },
  { zone: "America/Sao_Paulo", utcDaysBefore: "2026-11-15" },
  { zone: "Asia/Kathmandu", utcDaysBefore: "2026-11-20" },
];
const refusal = (query: string, zones: ReportZones = UTC_ONLY) => {
  try {
    parse(query, zones);
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error(`'${query}' was accepted`);
};

describe("report query parameters", () => {
  it("default to the last 30 days including today, page 1 of 50, the first sort column descending, JSON", () => {
    expect(parse("")).toEqual({
      startDate: "2026-10-24",
      endDate: "2026-11-22",
      zone: "UTC",
      page: 1,
      perPage: 50,
      orderBy: "impressions",
      order: "desc",
      download: false,
      ids: {},
    });
  });

  it("take every parameter the route lists", () => {
    expect(
      parse("start_date=2026-01-01&end_date=2026-01-31&page=3&per_page=1000&order_by=name&order=asc&download=true&advertiser_id=adv_1&campaign_id=cmp_2"),
    ).toEqual({
      startDate: "2026-01-01",
      endDate: "2026-01-31",
      zone: "UTC",
      page: 3,
      perPage: 1000,
      orderBy: "name",
      order: "asc",
      download: true,
      ids: { advertiser_id: "adv_1", campaign_id: "cmp_2" },
    });
    // end_date alone moves the default start with it.
    expect(parse("end_date=2026-03-01")).toMatchObject({ startDate: "2026-01-31", endDate: "2026-03-01" });
  });

  it("answer 400 naming the parameter for anything else", () => {
    const cases: [string, string][] = [
      ["start_date=2026-02-30", "start_date must be a date written YYYY-MM-DD, not '2026-02-30'"],
      ["end_date=22/11/2026", "end_date must be a date written YYYY-MM-DD, not '22/11/2026'"],
      ["start_date=2026-11-23&end_date=2026-11-22", "start_date (2026-11-23) is after end_date (2026-11-22)"],
      ["start_date=2025-01-01&end_date=2026-11-22", "start_date to end_date spans more than 366 days"],
      ["page=0", "page must be a whole number from 1 to 1000000, not '0'"],
      ["per_page=1001", "per_page must be a whole number from 1 to 1000, not '1001'"],
      ["per_page=10.5", "per_page must be a whole number from 1 to 1000, not '10.5'"],
      ["order_by=spend", "order_by must be one of impressions, clicks, name, not 'spend'"],
      ["order=up", "order must be asc or desc, not 'up'"],
      ["download=yes", "download must be true or false, not 'yes'"],
      [
        "publisher_id=pub_1",
        "unknown parameter 'publisher_id'; this route takes start_date, end_date, time_zone, page, per_page, order_by, order, download, advertiser_id, campaign_id",
      ],
      ["page=1&page=2", "page is given more than once"],
      ["advertiser_id=", "advertiser_id must be an id of 1 to 100 characters"],
    ];
    for (const [query, message] of cases) expect(refusal(query)).toEqual({ code: "bad_request", message });
  });

  it("accept a range of exactly 366 days", () => {
    expect(parse("start_date=2025-11-22&end_date=2026-11-22")).toMatchObject({ startDate: "2025-11-22", endDate: "2026-11-22" });
  });

  it("refuse paging and sorting on a route that answers one object", () => {
    const single = { ids: [], orderBy: ["day"], paged: false } as const;
    expect(parseReportQuery(new URLSearchParams("start_date=2026-11-01&download=true"), single, UTC_ONLY, NOW)).toMatchObject({
      startDate: "2026-11-01",
      download: true,
    });
    expect(() => parseReportQuery(new URLSearchParams("page=2"), single, UTC_ONLY, NOW)).toThrow(
      "unknown parameter 'page'; this route takes start_date, end_date, time_zone, download",
    );
  });

  it("read local dates of the account's zone by default, the last 30 local days ending today there", () => {
    // 2026-11-22T15:00Z is still the 22nd in São Paulo (12:00) and already 20:45 in Kathmandu.
    const late = new Date("2026-11-23T01:30:00Z");
    const query = (zone: string) => parseReportQuery(new URLSearchParams(""), spec, reportZones(zone, KEPT), late);
    expect(query("America/Sao_Paulo")).toMatchObject({ zone: "America/Sao_Paulo", startDate: "2026-10-24", endDate: "2026-11-22" });
    expect(query("Asia/Kathmandu")).toMatchObject({ zone: "Asia/Kathmandu", startDate: "2026-10-25", endDate: "2026-11-23" });
    expect(query("UTC")).toMatchObject({ zone: "UTC", endDate: "2026-11-23" });
  });

  it("take time_zone, canonicalised, and only a zone the store reads exactly", () => {
    const zones = reportZones("America/Sao_Paulo", KEPT);
    expect(parse("time_zone=asia/kathmandu", zones)).toMatchObject({ zone: "Asia/Kathmandu" });
    expect(parse("time_zone=utc", zones)).toMatchObject({ zone: "UTC" });
    expect(refusal("time_zone=Europe/Paris", zones)).toEqual({
      code: "bad_request",
      message: "time_zone must be one of: UTC, America/Sao_Paulo, Asia/Kathmandu",
    });
    expect(refusal("time_zone=Mars/Olympus", zones).message).toBe("time_zone must be an IANA time zone name such as America/Sao_Paulo, not 'Mars/Olympus'");
    expect(refusal("time_zone=%2B05:30", zones).message).toContain("time_zone must be an IANA time zone name");
    expect(refusal("time_zone=America/Sao_Paulo").message).toBe("time_zone must be one of: UTC");
  });

  it("fall back to UTC when the account's zone is not kept, and say which days are UTC days", () => {
    expect(reportZones("Europe/Paris", KEPT).defaultZone).toBe("UTC");
    const zones = reportZones("America/Sao_Paulo", KEPT);
    expect(utcDaysBeforeOf({ startDate: "2026-11-10", endDate: "2026-11-20", zone: "America/Sao_Paulo" }, zones)).toBe("2026-11-15");
    expect(utcDaysBeforeOf({ startDate: "2026-11-15", endDate: "2026-11-20", zone: "America/Sao_Paulo" }, zones)).toBeNull();
    expect(utcDaysBeforeOf({ startDate: "2026-11-01", endDate: "2026-11-20", zone: "UTC" }, zones)).toBeNull();
  });
});
