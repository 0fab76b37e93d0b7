// GET /api/cron/report-jobs: runs queued report jobs into the operator's bucket; Vercel Cron calls it every minute.
import { handleReportJobsCron } from "@/server/http/cron";

export const dynamic = "force-dynamic";
// Literal (Next.js reads it statically): keep equal to REPORT_JOBS_MAX_DURATION_SECONDS.
export const maxDuration = 300;

export const GET = handleReportJobsCron;
