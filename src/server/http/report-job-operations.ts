// The report jobs' routes (report-job-routes.ts) in the API document: the body from the schema
// that parses it (ZReportJobInput), the job from the schema its answer is typed by (ZReportJobView).
import { REPORT_JOB_BODY_MAX_BYTES, ZReportJobInput } from "@/server/pipeline/report/jobs/report-job-input";
import { MAX_JOBS_PER_PAGE, ZReportJobPage, ZReportJobView } from "@/server/pipeline/report/jobs/report-jobs";
import {
  type ApiContribution,
  type ApiHeader,
  type ApiOperation,
  type ApiResponse,
  type JsonSchema,
  jsonSchemaOf,
  RATE_LIMIT_HEADERS,
  responseRef,
  schemaRef,
} from "./openapi/registry";
import { securityFor } from "./openapi/report-operation";
import { countedError } from "./openapi/shared-responses";
import { DEFAULT_JOBS_PER_PAGE, MAX_JOBS_PAGE } from "./report-job-routes";

export const REPORT_JOBS_TAG = "Report jobs";

const CACHE_CONTROL: ApiHeader = { description: "Jobs are private and never cached: private, no-store.", required: true, schema: { type: "string" } };

const answer = (description: string, schema: JsonSchema, headers: ApiResponse["headers"] = {}): ApiResponse => ({
  description,
  headers: { "Cache-Control": CACHE_CONTROL, ...RATE_LIMIT_HEADERS, ...headers },
  content: { "application/json": { schema } },
});
const oneJob = { type: "object", properties: { data: schemaRef("ReportJob") }, required: ["data"], additionalProperties: false };

/** The page's schema with its jobs by reference, so the job's schema is written once. */
function jobPage(): JsonSchema {
  const schema = jsonSchemaOf(ZReportJobPage) as { properties: Record<string, unknown> };
  return { ...schema, properties: { ...schema.properties, data: { type: "array", items: schemaRef("ReportJob") } } };
}

const ERRORS = {
  "400": countedError("BadRequest"),
  "401": responseRef("Unauthorized"),
  "403": countedError("Forbidden"),
  "404": countedError("NotFound"),
  "429": countedError("TooManyRequests"),
  "503": countedError("Unavailable"),
};

const common = { tags: [REPORT_JOBS_TAG], security: securityFor("reports:jobs") } satisfies Partial<ApiOperation>;

/** The report jobs' part of the API document (src/server/http/openapi/). */
export const REPORT_JOBS_API: ApiContribution = {
  tags: [
    {
      name: REPORT_JOBS_TAG,
      description:
        "A long report as a file (JSON lines, CSV or XLSX), written in the background and fetched from a short-lived download address (docs/report-jobs.md).",
    },
  ],
  schemas: {
    ReportJobRequest: jsonSchemaOf(ZReportJobInput, "input"),
    ReportJob: jsonSchemaOf(ZReportJobView),
    ReportJobPage: jobPage(),
  },
  operations: [
    {
      method: "post",
      path: "/report/jobs",
      operationId: "createReportJob",
      ...common,
      summary: "Ask for a report as a file",
      description:
        "Queues a job that writes the whole report, every page, for the range and filters. 404 for a report not meant for the caller's kind of account or a campaign outside its scope; 429 once the account has as many unfinished jobs as it may; 503 when no bucket is configured.",
      requestBody: {
        required: true,
        description: `The job, as JSON (at most ${REPORT_JOB_BODY_MAX_BYTES} bytes). The filters and order_by a report takes are its route's.`,
        content: { "application/json": { schema: schemaRef("ReportJobRequest") } },
      },
      responses: {
        "202": answer("The job, queued.", oneJob, {
          Location: { description: "The job's address: /report/jobs/{id}.", required: true, schema: { type: "string", pattern: "^/report/jobs/[^/]+$" } },
        }),
        ...ERRORS,
        "413": countedError("PayloadTooLarge"),
        "415": countedError("UnsupportedMediaType"),
      },
    },
    {
      method: "get",
      path: "/report/jobs",
      operationId: "listReportJobs",
      ...common,
      summary: "The account's report jobs",
      description: "Newest first, a page at a time; download addresses only come with GET /report/jobs/{id}.",
      parameters: [
        { name: "page", in: "query", description: "The page to answer, from 1.", schema: { type: "integer", minimum: 1, maximum: MAX_JOBS_PAGE, default: 1 } },
        {
          name: "per_page",
          in: "query",
          description: "Jobs per page.",
          schema: { type: "integer", minimum: 1, maximum: MAX_JOBS_PER_PAGE, default: DEFAULT_JOBS_PER_PAGE },
        },
      ],
      responses: { "200": answer("One page of jobs.", schemaRef("ReportJobPage")), ...ERRORS },
    },
    {
      method: "get",
      path: "/report/jobs/{id}",
      operationId: "getReportJob",
      ...common,
      summary: "One report job",
      description: "Its status, and once done the file's download address, good until download_expires_at. 404 for a job of another account.",
      parameters: [{ name: "id", in: "path", required: true, description: "The job's id.", schema: { type: "string", minLength: 1 } }],
      responses: { "200": answer("The job.", oneJob), ...ERRORS },
    },
  ],
};
