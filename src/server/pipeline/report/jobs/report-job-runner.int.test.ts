// The report jobs' runner against failure: a worker killed half-way through its upload (its job
// taken over once the lease runs out, finished once, one object holding each row once), a lease
// taken from a worker that is still alive, attempts that all fail, the account's bound on
// unfinished jobs, and the files and rows gone after seven days (clock injected).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "@/server/core/days";
import { advertiserCaller, csvRows, queueLargeAdsJob, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { openJobBucket } from "./job-bucket";
import type { ReportJobRequest } from "./report-job-input";
import { deleteExpiredReportJobs } from "./report-job-retention";
import { createReportJob, getReportJob } from "./report-jobs";
import { claimJob, finishJob, renewLease, reportJobQueue } from "./report-jobs.sql";
import { runReportJobs } from "./run-report-jobs";

process.env.TALLY_REPORT_JOBS_PER_ACCOUNT = "2";
const jobsBucket = await reportJobBucketForTests();
const LEASE_MS = 60_000;

const request = (overrides: Partial<ReportJobRequest> = {}): ReportJobRequest => ({
  report: "campaigns",
  format: "csv",
  startDate: "2026-11-01",
  endDate: "2026-11-30",
  filters: {},
  orderBy: "impressions_total",
  order: "desc",
  ...overrides,
});

describe("a worker killed half-way through a job's upload", () => {
  it("leaves the job to be taken over once its lease runs out; it finishes once, one object, each row once", async () => {
    const { large, id } = await queueLargeAdsJob();
    const caller = { accountId: large.advertiserId, accountKind: "advertiser" as const };

    // Asynchronously: the local S3 answering the child runs in this process.
    const child = spawn(process.execPath, ["--import", "tsx", "src/testing/report-job-until-killed.ts"], {
      env: process.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, s) => resolve(s)));
    expect({ signal, stderr: stderr.slice(-2000) }).toMatchObject({ signal: "SIGKILL" });
    expect(await getReportJob({ caller, id })).toMatchObject({ status: "running", attempts: 1 });
    expect(await jobsBucket.listKeys()).toEqual([]);

    // Under its lease nobody takes it; once the lease has run out the next worker does.
    expect(await runReportJobs()).toEqual([]);
    const later = () => new Date(Date.now() + LEASE_MS + 1000);
    const [taken] = await runReportJobs({ now: later, settings: { partBytes: 5 * 1024 * 1024 } });
    expect(taken).toMatchObject({ id, status: "done", rows: large.rows });
    expect(await runReportJobs({ now: later })).toEqual([]);

    const job = await getReportJob({ caller, id });
    expect(job).toMatchObject({ status: "done", attempts: 2, rows: large.rows, error: null });
    const objectKey = `report-jobs/${large.advertiserId}/${id}.csv`;
    expect(await jobsBucket.listKeys()).toEqual([objectKey]);
    const file = await jobsBucket.fetchFile(job.download_url!);
    expect(file.bytes.byteLength).toBeGreaterThan(5 * 1024 * 1024);
    const rows = await csvRows(file.file);
    expect(rows).toHaveLength(large.rows);
    expect(new Set(rows.map((r) => `${r.ad_id} ${r.day}`)).size).toBe(large.rows);
    expect(rows[0]!.day).toBe(large.startDate);
    expect(rows.at(-1)!.day).toBe(large.endDate);
    await deleteExpiredReportJobs(new Date(Date.now() + 8 * DAY_MS));
  });
});

describe("a lease taken over from a worker still alive", () => {
  it("stops the old worker from renewing or finishing: only the new one marks the job done", async () => {
    const { caller, requester } = await advertiserCaller();
    const job = await createReportJob({ caller, requester, request: request() });
    const now = new Date();
    expect(await claimJob(now, new Date(now.getTime() + LEASE_MS), "first-worker", 3)).toMatchObject({ id: job.id, attempts: 1 });
    const [outcome] = await runReportJobs({ now: () => new Date(now.getTime() + LEASE_MS + 1) });
    expect(outcome).toMatchObject({ id: job.id, status: "done" });
    expect(await renewLease(job.id, "first-worker", new Date(now.getTime() + 2 * LEASE_MS))).toBe(false);
    expect(await finishJob(job.id, "first-worker", new Date(), { key: "elsewhere", rows: 0, bytes: 0 })).toBe(false);
    expect(await getReportJob({ caller, id: job.id })).toMatchObject({ status: "done", attempts: 2 });
    await deleteExpiredReportJobs(new Date(Date.now() + 8 * DAY_MS));
  });
});

describe("a job whose every attempt fails", () => {
  it("is tried again after a pause, then failed with the reason GET shows", async () => {
    const { caller, requester } = await advertiserCaller();
    const job = await createReportJob({ caller, requester, request: request() });
    const missing = openJobBucket({
      bucket: "no-such-bucket",
      region: "us-east-1",
      endpoint: process.env.TALLY_REPORT_JOBS_S3_ENDPOINT,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    let clock = Date.now();
    const run = () => runReportJobs({ bucket: missing, now: () => new Date(clock) });
    expect((await run()).map((o) => o.status)).toEqual(["queued"]);
    // /api/metrics shows it waiting.
    expect(await reportJobQueue(new Date(clock + 10_000))).toMatchObject({ waiting: 1, failedLastDay: 0 });
    // Not again before its pause (30 s after the first attempt, 60 s after the second).
    expect(await run()).toEqual([]);
    clock += 31_000;
    expect((await run()).map((o) => o.status)).toEqual(["queued"]);
    clock += 61_000;
    expect((await run()).map((o) => o.status)).toEqual(["failed"]);
    expect(await reportJobQueue(new Date(clock))).toEqual({ waiting: 0, lagSeconds: 0, failedLastDay: 1 });
    clock += 3_600_000;
    expect(await run()).toEqual([]);
    const failed = await getReportJob({ caller, id: job.id });
    expect(failed).toMatchObject({ status: "failed", attempts: 3, rows: null });
    expect(failed.error).toMatch(/NoSuchBucket|does not exist/);
    expect(failed.download_url).toBeUndefined();
    await deleteExpiredReportJobs(new Date(Date.now() + 8 * DAY_MS));
  });
});

describe("an account's unfinished jobs", () => {
  it("are bounded (TALLY_REPORT_JOBS_PER_ACCOUNT): one more is a 429 until one has finished", async () => {
    const { caller, requester } = await advertiserCaller();
    await createReportJob({ caller, requester, request: request() });
    await createReportJob({ caller, requester, request: request({ format: "jsonl" }) });
    await expect(createReportJob({ caller, requester, request: request({ format: "xlsx" }) })).rejects.toMatchObject({
      code: "too_many_requests",
      details: { retryAfterSeconds: 30 },
    });
    // Another account is not held back by this one's.
    const other = await advertiserCaller();
    await createReportJob({ ...other, request: request() });
    expect((await runReportJobs()).map((o) => [o.status, o.error])).toEqual([
      ["done", undefined],
      ["done", undefined],
      ["done", undefined],
    ]);
    expect(await createReportJob({ caller, requester, request: request({ format: "xlsx" }) })).toMatchObject({ status: "queued" });
    await runReportJobs();
    await deleteExpiredReportJobs(new Date(Date.now() + 8 * DAY_MS));
  });
});

describe("retention", () => {
  it("deletes a job and its file seven days after it was asked for, not before", async () => {
    const { caller, requester } = await advertiserCaller();
    const asked = new Date();
    const job = await createReportJob({ caller, requester, request: request(), now: asked });
    expect(Date.parse(job.expires_at) - asked.getTime()).toBe(7 * DAY_MS);
    await runReportJobs();
    const objectKey = `report-jobs/${caller.accountId}/${job.id}.csv`;
    expect(await jobsBucket.listKeys()).toEqual([objectKey]);

    expect(await deleteExpiredReportJobs(new Date(asked.getTime() + 7 * DAY_MS - 60_000))).toBe(0);
    expect(await jobsBucket.listKeys()).toEqual([objectKey]);
    expect(await deleteExpiredReportJobs(new Date(asked.getTime() + 7 * DAY_MS))).toBe(1);
    expect(await jobsBucket.listKeys()).toEqual([]);
    await expect(getReportJob({ caller, id: job.id })).rejects.toMatchObject({ code: "not_found" });
  });
});
