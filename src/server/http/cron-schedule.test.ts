import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { maxDuration } from "@/app/api/cron/export/route";
import { maxDuration as reportJobsMaxDuration } from "@/app/api/cron/report-jobs/route";
import { EXPORT_MAX_DURATION_SECONDS, REPORT_JOBS_MAX_DURATION_SECONDS } from "./cron";

describe("the Vercel cron schedule", () => {
  it("calls settle, attribution, the shipper and report jobs every minute and export every hour, within their routes' maxDuration", () => {
    const config = JSON.parse(readFileSync("vercel.json", "utf8")) as { crons: { path: string; schedule: string }[] };
    expect(config.crons).toEqual([
      { path: "/api/cron/settle", schedule: "* * * * *" },
      { path: "/api/cron/attribution", schedule: "* * * * *" },
      { path: "/api/cron/ship", schedule: "* * * * *" },
      { path: "/api/cron/export", schedule: "5 * * * *" },
      { path: "/api/cron/report-jobs", schedule: "* * * * *" },
    ]);
    // Next.js reads maxDuration from the route file as a literal; the job's budget is derived from the constant.
    expect(maxDuration).toBe(EXPORT_MAX_DURATION_SECONDS);
    expect(reportJobsMaxDuration).toBe(REPORT_JOBS_MAX_DURATION_SECONDS);
  });
});
