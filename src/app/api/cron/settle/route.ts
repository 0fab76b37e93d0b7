// GET /api/cron/settle: settles accepted beacons and keeps the log's partitions; Vercel Cron calls it every minute.
import { handleSettleCron } from "@/server/http/cron";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const GET = handleSettleCron;
