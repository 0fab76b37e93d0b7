// GET /api/cron/export: delivers due export batches; Vercel Cron calls it at minute 5 of every
// hour (events; from 03:05 UTC also the previous day's aggregates), each call within its budget.
import { handleExportCron } from "@/server/http/cron";

export const dynamic = "force-dynamic";
// Literal (Next.js reads it statically): keep equal to EXPORT_MAX_DURATION_SECONDS.
export const maxDuration = 300;

export const GET = handleExportCron;
