import { describe, expect, it } from "vitest";
import { parseReportJobInput } from "./report-job-input";

const good = { report: "ads_detailed", start_date: "2025-10-24", end_date: "2026-11-27", format: "xlsx" };
const message = (body: unknown) => {
  try {
    parseReportJobInput(body);
  } catch (error) {
    return (error as Error).message;
  }
  return null;
};

describe("a report job's body", () => {
  it("takes 400 days both included, fills in the route's first sort column, and keeps only the filters given", () => {
    expect(parseReportJobInput({ ...good, filters: { campaign_id: "cmp_1" } })).toEqual({
      report: "ads_detailed",
      format: "xlsx",
      startDate: "2025-10-24",
      endDate: "2026-11-27",
      filters: { campaign_id: "cmp_1" },
      orderBy: "day",
      order: "desc",
    });
    expect(parseReportJobInput({ ...good, report: "campaign_daily", filters: { campaign_id: "cmp_1" }, order: "asc" })).toMatchObject({
      orderBy: "day",
      order: "asc",
    });
  });

  it("names the field of each mistake", () => {
    expect(message({ ...good, end_date: "2026-11-28" })).toBe("end_date: start_date to end_date spans more than 400 days");
    expect(message({ ...good, start_date: "2026-11-28" })).toBe("start_date (2026-11-28) is after end_date (2026-11-27)");
    expect(message({ ...good, end_date: "27/11/2026" })).toBe("end_date: must be a date written YYYY-MM-DD");
    expect(message({ ...good, report: "campaign_daily" })).toBe("filters.campaign_id: the campaign_daily report needs it");
    expect(message({ ...good, report: "publishers", filters: { campaign_id: "c" } })).toBe("filters.campaign_id: the publishers report takes publisher_id");
    expect(message({ ...good, order_by: "publisher" })).toMatch(/^order_by: must be one of day, /);
    expect(message({ ...good, order: "up" })).toMatch(/^order: /);
    expect(message({ ...good, filters: { campaign_id: "" } })).toMatch(/^filters\.campaign_id: /);
    expect(message({ ...good, format: undefined })).toMatch(/^format: /);
    expect(message({ ...good, extra: 1 })).toBe("extra: is not a field this body takes");
    expect(message([])).toMatch(/^body: /);
  });
});
