// What POST /report/jobs takes (docs/report-jobs.md): one zod object, the body's validation, its
// type and (later) its OpenAPI document. The rules that depend on the report chosen (which ids it
// takes, what it may be sorted by) and on the range's length are checked after it, by
// checkReportJobInput, each as a 400 naming the field.
import { z } from "zod";
import { daysBetween, isIsoDay } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { MAX_ZONE_LENGTH } from "@/server/core/time-zones";
import { REPORT_ID_PARAMETERS, type ReportIdParameter } from "@/server/store/report-query";
import { REPORT_JOB_REPORTS, type ReportJobReport, reportJobDefinition } from "./report-job-reports";

/** The longest range a job reads, both days included. */
export const MAX_JOB_RANGE_DAYS = 400;
/** The body's largest size: a few ids and dates need far less. */
export const REPORT_JOB_BODY_MAX_BYTES = 4096;
export const REPORT_JOB_FORMATS = ["jsonl", "csv", "xlsx"] as const;
export type ReportJobFormat = (typeof REPORT_JOB_FORMATS)[number];

const day = z.string().refine(isIsoDay, "must be a date written YYYY-MM-DD");
const id = z.string().min(1).max(100);

export const ZReportJobInput = z.strictObject({
  /** Which report: one per report route; campaign_daily is GET /campaign/:id's daily rows. */
  report: z.enum(REPORT_JOB_REPORTS),
  /** The first day, a local date in time_zone, included. */
  start_date: day,
  /** The last day, a local date in time_zone, included; at most 400 days after start_date, counting both. */
  end_date: day,
  /** The IANA zone the dates are local dates in, one the reports can be read in; its account's by default. */
  time_zone: z.string().min(1).max(MAX_ZONE_LENGTH).optional(),
  /** The id parameters the report's route takes; campaign_daily needs campaign_id. */
  filters: z
    .strictObject(Object.fromEntries(REPORT_ID_PARAMETERS.map((name) => [name, id.optional()])) as Record<ReportIdParameter, z.ZodOptional<typeof id>>)
    .default({}),
  /** One of the columns the report's route may be sorted by; its first by default. */
  order_by: z.string().min(1).max(64).optional(),
  order: z.enum(["asc", "desc"]).optional(),
  format: z.enum(REPORT_JOB_FORMATS),
});
export type TReportJobInput = z.output<typeof ZReportJobInput>;

/** A job's request once checked: the report's own rules met, the sort filled in. */
export interface ReportJobRequest {
  report: ReportJobReport;
  format: ReportJobFormat;
  startDate: string;
  endDate: string;
  /** As asked for; the account's zone when absent (decided when the job is asked for, report-jobs.ts). */
  timeZone?: string | undefined;
  filters: Partial<Record<ReportIdParameter, string>>;
  orderBy: string;
  order: "asc" | "desc";
}

const bad = (message: string) => new TallyError("bad_request", message);

/** The body as a job's request; 400 naming the field for anything wrong. */
export function parseReportJobInput(body: unknown): ReportJobRequest {
  const parsed = ZReportJobInput.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const field = [...issue.path, ...keys.slice(0, 1)].join(".") || "body";
    throw bad(`${field}: ${issue.code === "unrecognized_keys" ? "is not a field this body takes" : issue.message}`);
  }
  return checkReportJobInput(parsed.data);
}

export function checkReportJobInput(input: TReportJobInput): ReportJobRequest {
  if (input.start_date > input.end_date) throw bad(`start_date (${input.start_date}) is after end_date (${input.end_date})`);
  if (daysBetween(input.start_date, input.end_date) + 1 > MAX_JOB_RANGE_DAYS)
    throw bad(`end_date: start_date to end_date spans more than ${MAX_JOB_RANGE_DAYS} days`);
  const definition = reportJobDefinition(input.report);
  const filters: Partial<Record<ReportIdParameter, string>> = {};
  for (const [name, value] of Object.entries(input.filters) as [ReportIdParameter, string | undefined][]) {
    if (value === undefined) continue;
    if (!definition.ids.includes(name))
      throw bad(`filters.${name}: the ${input.report} report takes ${definition.ids.length > 0 ? definition.ids.join(", ") : "no filters"}`);
    filters[name] = value;
  }
  if (definition.requires && filters[definition.requires] === undefined) throw bad(`filters.${definition.requires}: the ${input.report} report needs it`);
  const orderBy = input.order_by ?? definition.orderBy[0]!;
  if (!definition.orderBy.includes(orderBy)) throw bad(`order_by: must be one of ${definition.orderBy.join(", ")}, not '${orderBy}'`);
  return {
    report: input.report,
    format: input.format,
    startDate: input.start_date,
    endDate: input.end_date,
    timeZone: input.time_zone,
    filters,
    orderBy,
    order: input.order ?? "desc",
  };
}
