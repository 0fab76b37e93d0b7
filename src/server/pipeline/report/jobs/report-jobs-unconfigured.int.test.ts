// Without TALLY_REPORT_JOBS_BUCKET, report jobs are off: POST answers 503 saying what is missing,
// and the runner takes nothing (a job cannot have been queued without a bucket).
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { handleCreateReportJob } from "@/testing/api/checked-report-routes";
import { makeAdvertiser } from "@/testing/fixtures";
import { runReportJobs } from "./run-report-jobs";

delete process.env.TALLY_REPORT_JOBS_BUCKET;

describe("report jobs without the operator's bucket", () => {
  it("answer 503 with the setting to configure", async () => {
    const advertiser = await makeAdvertiser();
    const { key } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "jobs" });
    const response = await handleCreateReportJob(
      new Request("http://tally.test/report/jobs", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ report: "campaigns", start_date: "2026-11-01", end_date: "2026-11-30", format: "csv" }),
      }),
    );
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/TALLY_REPORT_JOBS_BUCKET/);
    expect(await runReportJobs()).toEqual([]);
  });
});
