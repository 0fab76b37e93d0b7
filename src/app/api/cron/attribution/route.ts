// GET /api/cron/attribution: attributes waiting orders; Vercel Cron calls it every minute.
import { handleAttributionCron } from "@/server/http/cron";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const GET = handleAttributionCron;
