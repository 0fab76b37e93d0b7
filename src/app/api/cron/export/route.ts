// GET /api/cron/export: delivers due export batches; Vercel Cron calls it hourly (events) and at
// 03:00 UTC (the previous day's aggregates), each call within its time budget.
import { handleExportCron } from "@/server/http/cron";

export const dynamic = "force-dynamic";
// Literal (Next.js reads it statically): keep equal to EXPORT_MAX_DURATION_SECONDS.
export const maxDuration = 300;

export const GET = handleExportCron;
