import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { maxDuration } from "@/app/api/cron/export/route";
import { EXPORT_MAX_DURATION_SECONDS } from "./cron";

describe("the Vercel cron schedule", () => {
  it("calls settle, attribution and the shipper every minute and export every hour, within the export route's maxDuration", () => {
    const config = JSON.parse(readFileSync("vercel.json", "utf8")) as { crons: { path: string; schedule: string }[] };
    expect(config.crons).toEqual([
      { path: "/api/cron/settle", schedule: "* * * * *" },
      { path: "/api/cron/attribution", schedule: "* * * * *" },
      { path: "/api/cron/ship", schedule: "* * * * *" },
      { path: "/api/cron/export", schedule: "5 * * * *" },
    ]);
    // Next.js reads maxDuration from the route file as a literal; the job's budget is derived from the constant.
    expect(maxDuration).toBe(EXPORT_MAX_DURATION_SECONDS);
  });
});
