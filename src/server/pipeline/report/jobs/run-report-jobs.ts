// The report jobs' runner (docs/report-jobs.md): takes a queued job (or one whose worker died),
// reads its report through the store as the route would, in the scope its account has now, and
// streams the file into the operator's bucket part by part. The lease is renewed while it runs;
// the file is completed and the job marked done only while this worker still holds it (compare
// and set on its token), so a job taken over after its lease ran out finishes once. A failed
// attempt is queued again after a pause, until the attempts run out.
import { randomUUID } from "node:crypto";
import { env } from "@/env";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { type CsvValue, csvWriter } from "@/server/formats/csv";
import type { ByteSink, TableWriter } from "@/server/formats/table-writer";
import type { XlsxProperties } from "@/server/formats/xlsx-parts";
import { store } from "@/server/store";
import { type ReportIdParameter, type ReportQuery, utcDaysBeforeOf } from "@/server/store/report-query";
import { reportCurrency } from "../report-currency";
import { accountCaller, reportScope, STAFF_CALLER } from "../report-scope";
import { reportFileProperties, reportXlsxWriter } from "../report-workbook";
import { type JobBucket, jobBucket, PART_BYTES, streamedUpload } from "./job-bucket";
import { type ReportJobDefinition, type ReportJobReport, reportJobDefinition } from "./report-job-reports";
import { FILE_EXTENSIONS } from "./report-jobs";
import { claimJob, endFailedAttempt, failAbandonedJobs, finishJob, type ReportJobRow, renewLease } from "./report-jobs.sql";

export interface JobRunSettings {
  leaseMs: number;
  maxAttempts: number;
  /** The longest one attempt may run. */
  maxMs: number;
  partBytes: number;
  /** Rows read per batch. */
  batch: number;
}

export const jobRunSettings = (): JobRunSettings => ({
  leaseMs: env().TALLY_REPORT_JOB_LEASE_SECONDS * 1000,
  maxAttempts: env().TALLY_REPORT_JOB_ATTEMPTS,
  maxMs: env().TALLY_REPORT_JOB_MAX_SECONDS * 1000,
  partBytes: PART_BYTES,
  // Two batches are in memory at once (one written, the next on its way): 1,000 rows of the
  // widest report are a few MB of heap, so a job stays well inside a worker's spare heap.
  batch: 1000,
});

const CONTENT_TYPES = {
  jsonl: "application/x-ndjson",
  csv: "text/csv; charset=utf-8",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
} as const;

/** A failed attempt waits this long per attempt made before it is taken again. */
const RETRY_PAUSE_MS = 30_000;

export interface JobOutcome {
  id: string;
  status: "done" | "queued" | "failed" | "lost";
  rows: number;
  bytes: number;
  error?: string;
}

export interface RunReportJobsOptions {
  now?: () => Date;
  bucket?: JobBucket;
  settings?: Partial<JobRunSettings>;
  /** Stop taking jobs once this much time has gone (a job already taken runs to its end). */
  budgetMs?: number;
  maxJobs?: number;
  /** Called as each part of a file has been uploaded, with its size (the tests stop a worker there). */
  onPart?: (part: number, bytes: number) => void;
}

/** Runs queued jobs one after another until none is left, the budget is spent or maxJobs have run. */
export async function runReportJobs(options: RunReportJobsOptions = {}): Promise<JobOutcome[]> {
  const bucket = options.bucket ?? jobBucket();
  if (!bucket) return [];
  const now = options.now ?? (() => new Date());
  const settings = { ...jobRunSettings(), ...options.settings };
  const started = Date.now();
  const outcomes: JobOutcome[] = [];
  await failAbandonedJobs(now(), settings.maxAttempts);
  while (outcomes.length < (options.maxJobs ?? Number.POSITIVE_INFINITY) && Date.now() - started < (options.budgetMs ?? Number.POSITIVE_INFINITY)) {
    const token = randomUUID();
    const job = await claimJob(now(), new Date(now().getTime() + settings.leaseMs), token, settings.maxAttempts);
    if (!job) break;
    outcomes.push(await runClaimedJob(job, token, { bucket, now, settings, onPart: options.onPart }));
  }
  return outcomes;
}

class LeaseLost extends Error {
  constructor() {
    super("another worker took the job over: its lease ran out");
  }
}

/** Bytes of a file of the job's format, written to `sink` batch by batch. */
function fileWriter(
  format: keyof typeof FILE_EXTENSIONS,
  workbook: ReportJobDefinition["workbook"],
  currency: string | null,
  sink: ByteSink,
  properties: XlsxProperties,
): TableWriter<Record<string, unknown>> {
  if (format === "xlsx") return reportXlsxWriter(workbook, currency, sink, { properties });
  if (format === "csv") {
    // A CSV is for programs: the JSON's field names, raw figures, no totals.
    const columns = workbook.columns;
    const csv = csvWriter(
      columns.map((c) => String(c.key)),
      sink,
    );
    return { write: (rows) => csv.write(rows.map((row) => columns.map((c) => row[c.key] as CsvValue))), close: () => csv.close() };
  }
  return {
    write: async (rows) => {
      if (rows.length > 0) await sink(Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join(""), "utf8"));
    },
    close: async () => {},
  };
}

/** Runs one attempt of a job this worker holds under `token`. */
export async function runClaimedJob(
  job: ReportJobRow,
  token: string,
  { bucket, now, settings, onPart }: { bucket: JobBucket; now: () => Date; settings: JobRunSettings; onPart?: (part: number, bytes: number) => void },
): Promise<JobOutcome> {
  const format = job.format as keyof typeof FILE_EXTENSIONS;
  const key = `report-jobs/${job.account_id ?? "staff"}/${job.id}.${FILE_EXTENSIONS[format]}`;
  const deadline = Date.now() + settings.maxMs;
  let lost = false;
  const holdOn = async () => {
    if (lost || !(await renewLease(job.id, token, new Date(now().getTime() + settings.leaseMs)))) {
      lost = true;
      throw new LeaseLost();
    }
  };
  const renewal = setInterval(() => void holdOn().catch(() => {}), Math.max(1000, settings.leaseMs / 3));
  renewal.unref();
  let rows = 0;
  let bytes = 0;
  let upload: Awaited<ReturnType<typeof streamedUpload>> | undefined;
  let read: Awaited<ReturnType<ReportJobDefinition["open"]>> | undefined;
  try {
    const caller = job.account_id === null ? STAFF_CALLER : await accountCaller(job.account_id);
    if (!caller) throw new TallyError("not_found", "its account no longer exists");
    const definition = reportJobDefinition(job.report as ReportJobReport);
    const query: ReportQuery<string> = {
      startDate: job.start_date,
      endDate: job.end_date,
      zone: job.time_zone,
      page: 1,
      perPage: settings.batch,
      orderBy: job.order_by,
      order: job.order as "asc" | "desc",
      download: true,
      ids: job.filters as Partial<Record<ReportIdParameter, string>>,
    };
    const zones = { defaultZone: query.zone, readable: await store().reports.readableZones() };
    // A zone no longer kept would read no rows of its own: the job fails rather than hand over an empty file.
    if (!zones.readable.some((z) => z.zone === query.zone)) throw new TallyError("bad_request", `reports are no longer kept in the time zone ${query.zone}`);
    read = await definition.open(await reportScope(caller), query, caller, settings.batch);
    const file = await streamedUpload(bucket, key, CONTENT_TYPES[format], { partBytes: settings.partBytes, onPart });
    upload = file;
    const currency = format === "xlsx" ? await reportCurrency(caller, query.ids) : null;
    const workbook = read.workbook ?? definition.workbook;
    const properties = reportFileProperties(workbook.sheet, query, utcDaysBeforeOf(query, zones));
    const writer = fileWriter(format, workbook, currency, (chunk) => file.write(chunk), properties);
    for await (const batch of read.batches) {
      if (lost) throw new LeaseLost();
      if (Date.now() > deadline) throw new TallyError("unavailable", `it ran past its time limit (${settings.maxMs / 1000} s)`);
      await writer.write(batch);
      rows += batch.length;
    }
    await writer.close();
    bytes = (await file.complete(holdOn)).bytes;
    upload = undefined;
    clearInterval(renewal);
    if (!(await finishJob(job.id, token, now(), { key, rows, bytes }))) return { id: job.id, status: "lost", rows, bytes };
    logger().info({ job: "report-jobs", id: job.id, report: job.report, format, rows, bytes, attempt: job.attempts }, "report job done");
    return { id: job.id, status: "done", rows, bytes };
  } catch (error) {
    clearInterval(renewal);
    await read?.close().catch(() => {});
    await upload?.abort().catch(() => {});
    if (error instanceof LeaseLost || lost) return { id: job.id, status: "lost", rows, bytes, error: new LeaseLost().message };
    const message = describeFailure(error);
    // A campaign or account gone from the scope will not come back by trying again.
    const final = error instanceof TallyError && error.code === "not_found";
    const retryAt = new Date(now().getTime() + RETRY_PAUSE_MS * job.attempts);
    const status = await endFailedAttempt(job.id, token, now(), message, { retryAt, maxAttempts: settings.maxAttempts, final });
    logger().warn({ job: "report-jobs", id: job.id, attempt: job.attempts, cause: message, next: status }, "report job attempt failed");
    return { id: job.id, status: status ?? "lost", rows, bytes, error: message };
  }
}

/** A failure in words the job's owner can read: never a stack, never a credential. */
function describeFailure(error: unknown): string {
  if (error instanceof TallyError) return error.message;
  const e = error as { name?: string; message?: string; code?: string };
  if (e?.code === "57014") return "the report's query ran past its time limit";
  return `${e?.name && e.name !== "Error" ? `${e.name}: ` : ""}${e?.message ?? String(error)}`.slice(0, 500);
}
