// The report jobs' routes (docs/report-jobs.md) as Fetch handlers: POST /report/jobs queues one
// (202 and its address), GET /report/jobs lists the account's, GET /report/jobs/:id reads one with
// its download address once done. Who asks, and their rate, is reportRoute's, as for the reports;
// an OAuth token needs the scope reports:jobs for all three (API keys and sessions hold it).
import { TallyError } from "@/server/core/errors";
import { parseReportJobInput, REPORT_JOB_BODY_MAX_BYTES } from "@/server/pipeline/report/jobs/report-job-input";
import { createReportJob, getReportJob, listReportJobs, MAX_JOBS_PER_PAGE } from "@/server/pipeline/report/jobs/report-jobs";
import { readJsonBody } from "./read-json-body";
import { reportRoute } from "./report-caller";

const NO_STORE = { "Cache-Control": "private, no-store" };
export const MAX_JOBS_PAGE = 1_000_000;
export const DEFAULT_JOBS_PER_PAGE = 20;
const JOBS = { scope: "reports:jobs" } as const;

export const handleCreateReportJob = reportRoute(async (request, caller, requester) => {
  const body = await readJsonBody(request, REPORT_JOB_BODY_MAX_BYTES);
  const job = await createReportJob({ caller, requester, request: parseReportJobInput(body) });
  return Response.json({ data: job }, { status: 202, headers: { ...NO_STORE, Location: `/report/jobs/${encodeURIComponent(job.id)}` } });
}, JOBS);

function pageParameter(params: URLSearchParams, name: string, fallback: number, max: number): number {
  const value = params.get(name);
  if (value === null) return fallback;
  if (!/^[1-9]\d{0,6}$/.test(value) || Number(value) > max)
    throw new TallyError("bad_request", `${name} must be a whole number from 1 to ${max}, not '${value}'`);
  return Number(value);
}

export const handleListReportJobs = reportRoute(async (request, caller) => {
  const params = new URL(request.url).searchParams;
  for (const name of params.keys()) {
    if (name !== "page" && name !== "per_page") throw new TallyError("bad_request", `unknown parameter '${name}'; this route takes page, per_page`);
  }
  const page = pageParameter(params, "page", 1, MAX_JOBS_PAGE);
  const perPage = pageParameter(params, "per_page", DEFAULT_JOBS_PER_PAGE, MAX_JOBS_PER_PAGE);
  return Response.json(await listReportJobs({ caller, page, perPage }), { headers: NO_STORE });
}, JOBS);

/** The :id segment of /report/jobs/:id; "" when missing or not valid percent-encoding (a 404). */
function jobIdOf(url: URL): string {
  try {
    return decodeURIComponent(url.pathname.split("/")[3] ?? "");
  } catch {
    return "";
  }
}

export const handleGetReportJob = reportRoute(async (request, caller) => {
  const id = jobIdOf(new URL(request.url));
  if (!id) throw new TallyError("not_found", "no such report job");
  return Response.json({ data: await getReportJob({ caller, id }) }, { headers: NO_STORE });
}, JOBS);
