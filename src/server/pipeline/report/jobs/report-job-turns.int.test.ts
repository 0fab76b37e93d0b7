// Accounts take turns at the report jobs' workers: one account's backlog delays another's job by
// at most one job, whether one worker runs them or several at once; an account keeps at most
// TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT finished jobs, the oldest deleted with their files; and the
// claim keeps to the accounts' index however many jobs wait.
import { describe, expect, it } from "vitest";
import { DAY_MS } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { advertiserCaller, reportJobBucketForTests } from "@/testing/report-job-bucket";
import type { Requester } from "../download-slots";
import type { ReportCaller } from "../report-scope";
import type { ReportJobRequest } from "./report-job-input";
import { deleteExpiredReportJobs } from "./report-job-retention";
import { createReportJob, getReportJob, listReportJobs } from "./report-jobs";
import { claimJob, claimJobStatement } from "./report-jobs.sql";
import { runReportJobs } from "./run-report-jobs";

process.env.TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT = "3";
const jobsBucket = await reportJobBucketForTests();
const LEASE_MS = 60_000;

const request = (format: ReportJobRequest["format"] = "csv"): ReportJobRequest => ({
  report: "campaigns",
  format,
  startDate: "2026-11-01",
  endDate: "2026-11-30",
  filters: {},
  orderBy: "impressions_total",
  order: "desc",
});
/** Jobs asked one after another, each a millisecond after the one before, so their order is certain. */
async function askJobs(who: { caller: ReportCaller; requester: Requester }, count: number, from: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await createReportJob({ ...who, request: request(), now: new Date(from + i) })).id);
  return ids;
}
const cleanUp = () => deleteExpiredReportJobs(new Date(Date.now() + 8 * DAY_MS));

describe("an account with five jobs queued before another's one", () => {
  it("with one worker: the other account's job is taken second, then the first account's go on in order", async () => {
    const a = await advertiserCaller();
    const b = await advertiserCaller();
    const start = Date.now() - 10_000;
    const aJobs = await askJobs(a, 5, start);
    const [bJob] = await askJobs(b, 1, start + 100);
    const order: string[] = [];
    for (;;) {
      const [outcome] = await runReportJobs({ maxJobs: 1 });
      if (!outcome) break;
      expect(outcome.status).toBe("done");
      order.push(outcome.id);
    }
    expect(order).toEqual([aJobs[0], bJob, ...aJobs.slice(1)]);
    await cleanUp();
  });

  it("with two workers at once: the second takes the other account's job, not the first account's next", async () => {
    const a = await advertiserCaller();
    const b = await advertiserCaller();
    const start = Date.now() - 10_000;
    const aJobs = await askJobs(a, 5, start);
    const [bJob] = await askJobs(b, 1, start + 100);
    const now = new Date();
    const lease = new Date(now.getTime() + LEASE_MS);
    expect((await claimJob(now, lease, "worker-1", 3))?.id).toBe(aJobs[0]);
    expect((await claimJob(now, lease, "worker-2", 3))?.id).toBe(bJob);
    // Both accounts have one running: the first account's next job, as it was asked first.
    expect((await claimJob(now, lease, "worker-3", 3))?.id).toBe(aJobs[1]);
    // Leases run out unfinished: the jobs are taken again, one per account in turn.
    const later = () => new Date(now.getTime() + LEASE_MS + 1000);
    expect((await runReportJobs({ now: later })).map((o) => o.id).slice(0, 3)).toEqual([aJobs[0], bJob, aJobs[1]]);
    await cleanUp();
  });

  it("staff's jobs take one turn like an account's", async () => {
    const a = await advertiserCaller();
    const staff = { caller: { accountId: null, accountKind: "staff" as const }, requester: { caller: "user:staff-test", account: "staff" } };
    const start = Date.now() - 10_000;
    const staffJobs = await askJobs(staff, 3, start);
    const [aJob] = await askJobs(a, 1, start + 100);
    const order = (await runReportJobs()).map((o) => o.id);
    expect(order).toEqual([staffJobs[0], aJob, staffJobs[1], staffJobs[2]]);
    await cleanUp();
  });
});

describe("an account's finished jobs", () => {
  it("are kept up to TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT: asking for another deletes the oldest, file and row", async () => {
    const a = await advertiserCaller();
    const other = await advertiserCaller();
    const start = Date.now() - 10_000;
    const [otherJob] = await askJobs(other, 1, start - 100);
    const first = await askJobs(a, 3, start);
    await runReportJobs();
    const keyOf = (id: string) => `report-jobs/${a.caller.accountId}/${id}.csv`;
    expect(await jobsBucket.listKeys(`report-jobs/${a.caller.accountId}/`)).toEqual(first.map(keyOf).sort());

    // A fourth job, still queued: three finished ones are within the bound.
    const [fourth] = await askJobs(a, 1, start + 10);
    expect((await listReportJobs({ caller: a.caller, page: 1, perPage: 10 })).total).toBe(4);
    await runReportJobs();
    // A fifth: the four finished are one past the bound, so the oldest goes, its file first.
    const [fifth] = await askJobs(a, 1, start + 20);
    await expect(getReportJob({ caller: a.caller, id: first[0]! })).rejects.toMatchObject({ code: "not_found" });
    expect(await jobsBucket.listKeys(`report-jobs/${a.caller.accountId}/`)).toEqual([first[1]!, first[2]!, fourth!].map(keyOf).sort());
    const listed = await listReportJobs({ caller: a.caller, page: 1, perPage: 10 });
    expect(listed.data.map((j) => j.id)).toEqual([fifth, fourth, first[2], first[1]]);
    // Another account's jobs are its own business.
    expect(await getReportJob({ caller: other.caller, id: otherJob! })).toMatchObject({ status: "done" });
    await runReportJobs();
    await cleanUp();
  });
});

describe("the claim with many jobs waiting", () => {
  it("reads each waiting job's account through the accounts' index, not every job", async () => {
    const client = await pgPool().connect();
    try {
      // 2,000 accounts' worth of jobs (an account id needs no account row here: the transaction is rolled back).
      await client.query("BEGIN");
      await client.query("SET LOCAL session_replication_role = replica");
      await client.query(`INSERT INTO report_jobs (id, account_id, requested_by, report, format, start_date, end_date, order_by, "order", status, started_at, created_at, expires_at)
        SELECT 'rjob_many_' || n, 'acct_many_' || (n % 2000), 'key:many', 'campaigns', 'csv', '2026-11-01', '2026-11-30', 'day', 'asc',
               CASE WHEN n % 3 = 0 THEN 'done' ELSE 'queued' END::"ReportJobStatus",
               CASE WHEN n % 3 = 0 THEN now() - n * interval '1 second' END, now() - n * interval '1 second', now() + interval '7 days'
          FROM generate_series(1, 10000) n`);
      await client.query("ANALYZE report_jobs");
      const now = new Date();
      const statement = claimJobStatement(now, new Date(now.getTime() + LEASE_MS), "explained", 3);
      const { rows } = await client.query<{ "QUERY PLAN": string }>({ text: `EXPLAIN ${statement.text}`, values: statement.values });
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).toMatch(/Index (Only )?Scan.*report_jobs_account_id_started_at_idx/);
      // Only the outer scan of the waiting jobs may read the table whole.
      expect(plan.match(/Seq Scan on report_jobs/g)?.length ?? 0).toBeLessThanOrEqual(1);
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});
