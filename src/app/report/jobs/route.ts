// POST /report/jobs: queues a long report as a file (JSON lines, CSV, XLSX); GET /report/jobs: the account's jobs, newest first.
import { handleCreateReportJob, handleListReportJobs } from "@/server/http/report-job-routes";

export const dynamic = "force-dynamic";

export const POST = handleCreateReportJob;
export const GET = handleListReportJobs;
