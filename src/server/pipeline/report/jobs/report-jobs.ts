// Asking for a report job and reading it back (docs/report-jobs.md). A job belongs to its
// account: every credential of that account sees it, staff see every job, anyone else gets "no
// such job". Which rows it reads is decided again when it runs, from its account.
import { z } from "zod";
import { env } from "@/env";
import { countReportJobRefused, countReportJobsDropped } from "@/server/core/counters";
import { DAY_MS } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { newId } from "@/server/db/ids";
import { store } from "@/server/store";
import { parseTimeZone } from "@/server/store/report-query";
import type { Requester } from "../download-slots";
import { type ReportCaller, reportScope } from "../report-scope";
import { callerReportZones } from "../report-time-zone";
import { DOWNLOAD_URL_SECONDS, type JobBucket, presignedDownload, requireJobBucket } from "./job-bucket";
import { REPORT_JOB_FORMATS, type ReportJobRequest } from "./report-job-input";
import { assertReportFor, REPORT_JOB_REPORTS } from "./report-job-reports";
import { deleteJobsAndFiles } from "./report-job-retention";
import { insertJobWithinLimit, type ReportJobRow, selectJob, selectJobs } from "./report-jobs.sql";

/** How long a job and its file are kept after it was asked for. */
export const REPORT_JOB_RETENTION_DAYS = 7;

export const FILE_EXTENSIONS = { jsonl: "jsonl", csv: "csv", xlsx: "xlsx" } as const;

const JOB_STATUSES = ["queued", "running", "done", "failed"] as const satisfies readonly ReportJobRow["status"][];
const instant = z.iso.datetime();

/** A job as its account reads it: the answer's shape, and the API document's (src/server/http/report-job-routes.ts). */
export const ZReportJobView = z.object({
  id: z.string(),
  status: z.enum(JOB_STATUSES).describe("queued, then running, then done or failed (after its last attempt)."),
  report: z.enum(REPORT_JOB_REPORTS),
  format: z.enum(REPORT_JOB_FORMATS),
  start_date: z.iso.date(),
  end_date: z.iso.date(),
  time_zone: z.string().describe("The IANA zone start_date, end_date and the rows' days are local dates in."),
  filters: z.record(z.string(), z.string()).describe("The id parameters asked for."),
  order_by: z.string(),
  order: z.enum(["asc", "desc"]),
  attempts: z.number().int().min(0).describe("How many times a worker has taken the job."),
  rows: z.number().int().min(0).nullable().describe("The file's rows, once done."),
  bytes: z.number().int().min(0).nullable().describe("The file's size in bytes, once done."),
  created_at: instant,
  started_at: instant.nullable(),
  finished_at: instant.nullable(),
  expires_at: instant.describe("When the job and its file are deleted."),
  error: z.string().nullable().describe("Why the last attempt failed; null once done."),
  download_url: z.url().optional().describe("GET /report/jobs/{id} of a done job only: the file's address, good until download_expires_at."),
  download_expires_at: instant.optional(),
});
export type ReportJobView = z.infer<typeof ZReportJobView>;

/** A page of the account's jobs, newest first. */
export const ZReportJobPage = z.object({
  data: z.array(ZReportJobView),
  page: z.number().int().min(1),
  per_page: z.number().int().min(1),
  total: z.number().int().min(0),
});

const iso = (moment: Date | null) => (moment ? moment.toISOString() : null);

/** A zone in a file name: America/Sao_Paulo as America-Sao_Paulo (a slash would be a folder). */
export const zoneInFileName = (zone: string) => zone.replaceAll("/", "-");

/** Whose jobs a caller sees: its account's, or every job for staff (undefined). */
const ownerOf = (caller: ReportCaller): string | undefined => (caller.accountKind === "staff" ? undefined : caller.accountId);

export async function jobView(row: ReportJobRow, bucket: JobBucket | null, now: Date): Promise<ReportJobView> {
  const view: ReportJobView = {
    id: row.id,
    status: row.status,
    report: row.report as ReportJobView["report"],
    format: row.format as ReportJobView["format"],
    start_date: row.start_date,
    end_date: row.end_date,
    time_zone: row.time_zone,
    filters: row.filters,
    order_by: row.order_by,
    order: row.order as ReportJobView["order"],
    attempts: row.attempts,
    rows: row.rows === null ? null : Number(row.rows),
    bytes: row.bytes === null ? null : Number(row.bytes),
    created_at: row.created_at.toISOString(),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    expires_at: row.expires_at.toISOString(),
    error: row.status === "done" ? null : row.error,
  };
  if (row.status === "done" && row.object_key && bucket) {
    const fileName = `${row.report}_${row.start_date}_${row.end_date}_${zoneInFileName(row.time_zone)}.${FILE_EXTENSIONS[row.format as keyof typeof FILE_EXTENSIONS]}`;
    view.download_url = await presignedDownload(bucket, row.object_key, fileName);
    view.download_expires_at = new Date(now.getTime() + DOWNLOAD_URL_SECONDS * 1000).toISOString();
  }
  return view;
}

/**
 * Queues a job for `caller`: 404 for a report not meant for its kind of account or a campaign
 * outside its scope (as the routes answer), 503 without a bucket, 429 past the account's
 * unfinished jobs (TALLY_REPORT_JOBS_PER_ACCOUNT). Finished jobs past the account's newest
 * TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT are deleted, files included.
 */
export async function createReportJob({
  caller,
  requester,
  request,
  now = new Date(),
}: {
  caller: ReportCaller;
  requester: Requester;
  request: ReportJobRequest;
  now?: Date;
}): Promise<ReportJobView> {
  assertReportFor(request.report, caller);
  const bucket = requireJobBucket();
  const zone = parseTimeZone(request.timeZone, await callerReportZones(caller));
  if (request.report === "campaign_daily") {
    const campaignId = request.filters.campaign_id!;
    const oneDay = {
      startDate: request.startDate,
      endDate: request.startDate,
      zone,
      page: 1,
      perPage: 1,
      orderBy: "day",
      order: "asc" as const,
      download: false,
      ids: {},
    };
    if (!(await store().reports.campaign(await reportScope(caller), campaignId, oneDay, { withAds: false })))
      throw new TallyError("not_found", `no campaign ${campaignId}`);
  } else {
    // The scope exists (an account that still does), as the route would find it.
    await reportScope(caller);
  }
  const limits = { unfinished: env().TALLY_REPORT_JOBS_PER_ACCOUNT, kept: env().TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT };
  const inserted = await insertJobWithinLimit(
    {
      id: newId("rjob"),
      account_id: caller.accountId,
      requested_by: requester.caller,
      report: request.report,
      format: request.format,
      start_date: request.startDate,
      end_date: request.endDate,
      time_zone: zone,
      filters: request.filters as Record<string, string>,
      order_by: request.orderBy,
      order: request.order,
      created_at: now,
      expires_at: new Date(now.getTime() + REPORT_JOB_RETENTION_DAYS * DAY_MS),
    },
    limits,
  );
  if (inserted === "full") {
    countReportJobRefused();
    throw new TallyError("too_many_requests", `the account already has ${limits.unfinished} report jobs queued or running; ask again once one has finished`, {
      retryAfterSeconds: 30,
    });
  }
  if (inserted.dropped.length > 0) {
    countReportJobsDropped(inserted.dropped.length);
    // Already expired: if the bucket fails now, upkeep deletes them on its next run.
    await deleteJobsAndFiles(inserted.dropped, bucket).catch((error: unknown) =>
      logger().warn({ job: "report-jobs", dropped: inserted.dropped.length, cause: String(error) }, "finished report jobs left to upkeep"),
    );
  }
  return jobView(inserted.job, bucket, now);
}

/** One job, if the caller's account owns it (staff: any); else 404. */
export async function getReportJob({ caller, id, now = new Date() }: { caller: ReportCaller; id: string; now?: Date }): Promise<ReportJobView> {
  const row = await selectJob(id, ownerOf(caller));
  if (!row) throw new TallyError("not_found", `no report job ${id}`);
  return jobView(row, requireJobBucket(), now);
}

export const MAX_JOBS_PER_PAGE = 100;

/** The caller's account's jobs, newest first, a page at a time; download addresses only on GET of one job. */
export async function listReportJobs({
  caller,
  page,
  perPage,
}: {
  caller: ReportCaller;
  page: number;
  perPage: number;
}): Promise<z.infer<typeof ZReportJobPage>> {
  const { rows, total } = await selectJobs(ownerOf(caller), { offset: (page - 1) * perPage, limit: perPage });
  const now = new Date();
  return { data: await Promise.all(rows.map((row) => jobView(row, null, now))), page, per_page: perPage, total };
}
