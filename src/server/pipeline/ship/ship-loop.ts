import { type IntervalJob, startIntervalJob } from "@/server/core/interval-job";
import { jobLog } from "@/server/core/log";
import { store } from "@/server/store";
import { SHIP_GATHER_SECONDS, shipPending } from "./ship-pending";

/**
 * Ships settled rows to ClickHouse every `intervalMs` inside a long-running server or `npm run
 * worker`, so reports follow settling within an interval or two; null (no loop) with Postgres as
 * the store. Serverless deployments call GET /api/cron/ship instead.
 */
export function startShipLoop(intervalMs: number, log: (line: string) => void = jobLog("ship")): IntervalJob | null {
  if (!store().shipping) return null;
  return startIntervalJob({
    name: "ship",
    intervalMs,
    firstDelayMs: 1_000,
    log,
    run: async () => {
      const done = await shipPending({ budgetMs: Math.max(30_000, intervalMs * 5), gatherSeconds: SHIP_GATHER_SECONDS });
      if (done.setAside > 0) log(`tally: ship: ${done.setAside} rows ClickHouse refused set aside (clickhouse_set_aside lists them with the reason)`);
      // Thrown, so the job says once that shipping stopped, counts it, and says when it works again.
      if (done.error !== null) throw new Error(`ClickHouse: ${done.error} (the batches wait for the next run)`);
    },
  });
}
