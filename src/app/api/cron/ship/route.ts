// GET /api/cron/ship: ships settled rows to ClickHouse (CLICKHOUSE_URL); Vercel Cron calls it every minute. Nothing to do with Postgres as the store.
import { handleShipCron } from "@/server/http/cron";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const GET = handleShipCron;
