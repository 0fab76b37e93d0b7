// Report jobs against the production build (`next start`) when one account fills the queue: it
// asks for as many long jobs as it may (a 429 past them), another account asks for one after, and
// that job is done within one of the first account's jobs, not after all five. The first account's
// jobs all finish too, and the other account's file and a report route answer as they should.
// This file starts its own Next.js server with a jobs bucket (a local S3) and the jobs' loop on;
// the stack's server, which has no bucket, settles.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { nextServerArgs } from "@/cli/next-server";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { disconnectDb } from "@/server/db/client";
import { closePgPool, pgPool } from "@/server/db/pg-pool";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { type LargeReport, seedLargeAdsReport } from "@/testing/large-report";
import { closeSql, eventually, startExtraServer, stopServers } from "./client";

const BUCKET = "hostile-report-jobs";
const PER_ACCOUNT = 5;
const SMALL_RANGE = { start_date: "2026-11-01", end_date: "2026-11-03" };

interface JobView {
  id: string;
  status: string;
  rows: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  download_url?: string;
}

const servers: ChildProcess[] = [];
let s3: LocalS3;
let s3Directory: string;
let origin: string;
let large: LargeReport & { key: string };
let small: { campaignId: string; key: string };

beforeAll(async () => {
  s3Directory = mkdtempSync(path.join(tmpdir(), "hostile-report-jobs-"));
  s3 = await startLocalS3({ directory: s3Directory, buckets: [BUCKET] });
  // Long jobs: 150 ads a day over 400 days, as XLSX.
  const seeded = await seedLargeAdsReport(pgPool(), { ads: 150, days: 400, endDate: "2026-11-20" });
  large = { ...seeded, key: (await createApiKey({ actor: OPERATOR, accountId: seeded.advertiserId, name: "hostile jobs" })).key };
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  small = { campaignId: campaign.id, key: (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "hostile jobs" })).key };
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  servers.push(
    await startExtraServer(
      "next start (report jobs)",
      nextServerArgs("start", "--port", String(port), "--hostname", "127.0.0.1"),
      {
        TALLY_SETTLE_INTERVAL_SECONDS: "0",
        TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
        TALLY_EXPORT_INTERVAL_SECONDS: "0",
        TALLY_REPORT_JOBS_BUCKET: BUCKET,
        TALLY_REPORT_JOBS_S3_ENDPOINT: s3.endpoint,
        TALLY_REPORT_JOBS_S3_FORCE_PATH_STYLE: "1",
        TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
        TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
        TALLY_REPORT_JOBS_PER_ACCOUNT: String(PER_ACCOUNT),
        TALLY_REPORT_JOBS_INTERVAL_SECONDS: "1",
      },
      "/api/health",
      port,
    ),
  );
}, 180_000);

afterAll(async () => {
  await stopServers(servers);
  await s3?.stop().catch(() => {});
  if (s3Directory) rmSync(s3Directory, { recursive: true, force: true });
  await closeSql();
  await closePgPool();
  await disconnectDb();
});

const askJob = (key: string, body: object) =>
  fetch(`${origin}/report/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
async function jobOf(key: string, id: string): Promise<JobView> {
  const answer = await fetch(`${origin}/report/jobs/${id}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { data: JobView }).data;
}
const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;

describe("one account filling the report jobs' queue", () => {
  it("delays another account's job by at most one of its jobs; its own all finish; a report still answers", async () => {
    const longJob = { report: "ads_detailed", start_date: large.startDate, end_date: large.endDate, order_by: "day", order: "asc", format: "xlsx" };
    const longIds: string[] = [];
    for (let i = 0; i < PER_ACCOUNT; i += 1) {
      const answer = await askJob(large.key, longJob);
      expect(answer.status).toBe(202);
      longIds.push(((await answer.json()) as { data: JobView }).data.id);
    }
    const refused = await askJob(large.key, longJob);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "too_many_requests",
      message: "the account already has 5 report jobs queued or running; ask again once one has finished",
    });

    const asked = await askJob(small.key, { report: "campaigns", ...SMALL_RANGE, format: "csv" });
    expect(asked.status).toBe(202);
    const smallId = ((await asked.json()) as { data: JobView }).data.id;

    // Polled as a client within the report rate (10 a second per key) would: the five long jobs
    // every 2 s, one after another, and only those not yet done.
    await eventually("the other account's job is done", async () => (await jobOf(small.key, smallId)).status === "done", 240_000, 1_000);
    const pending = new Set(longIds);
    await eventually(
      "the first account's jobs are all done",
      async () => {
        for (const id of [...pending]) if ((await jobOf(large.key, id)).status === "done") pending.delete(id);
        return pending.size === 0;
      },
      600_000,
      2_000,
    );
    const smallJob = await jobOf(small.key, smallId);
    const longJobs: JobView[] = [];
    for (const id of longIds) longJobs.push(await jobOf(large.key, id));
    expect(longJobs.map((job) => job.rows)).toEqual(longIds.map(() => large.rows));

    // One worker (this server's loop): at most one of the first account's jobs started while the other's waited.
    const startedMeanwhile = longJobs.filter((job) => job.started_at! > smallJob.created_at && job.started_at! < smallJob.started_at!);
    expect(startedMeanwhile.length).toBeLessThanOrEqual(1);
    const longest = Math.max(...longJobs.map((job) => seconds(job.started_at!, job.finished_at!)));
    const waited = seconds(smallJob.created_at, smallJob.started_at!);
    // One long job's time, and the loop's 1 s look for work, at most.
    expect(waited).toBeLessThanOrEqual(longest + 2);
    // What the first account's backlog would have cost it in the order the jobs were asked for.
    const backlog = longJobs.reduce((sum, job) => sum + seconds(job.started_at!, job.finished_at!), 0);
    expect(waited).toBeLessThan(backlog / 2);

    // The other account's file is its report; a report route answers it as before.
    const file = await fetch(smallJob.download_url!);
    expect(file.status).toBe(200);
    const lines = (await file.text()).trim().split("\r\n");
    expect(lines[0]).toMatch(/^campaign_id,name,/);
    expect(lines.slice(1).map((line) => line.split(",")[0])).toEqual([small.campaignId]);
    const route = await fetch(`${origin}/campaign/v2?start_date=${SMALL_RANGE.start_date}&end_date=${SMALL_RANGE.end_date}`, {
      headers: { Authorization: `Bearer ${small.key}` },
    });
    expect(route.status).toBe(200);
    expect(((await route.json()) as { data: { campaign_id: string }[] }).data.map((row) => row.campaign_id)).toEqual([small.campaignId]);
  }, 900_000);
});
