import { type IntervalJob, startIntervalJob } from "@/server/core/interval-job";
import { jobLog } from "@/server/core/log";
import { attributePendingConversions } from "./attribute-pending";

/**
 * Runs attribution every `intervalMs` inside a long-running server (next dev, next start), so
 * an order shows in reports within a minute without a scheduler. Serverless deployments call
 * the cron route instead.
 */
export function startAttributionLoop(intervalMs: number, log: (line: string) => void = jobLog("attribution")): IntervalJob {
  return startIntervalJob({
    name: "attribution",
    intervalMs,
    firstDelayMs: 2_000,
    log,
    run: async () => {
      const done = await attributePendingConversions();
      if (done.orders > 0) log(`tally: attribution: ${done.orders} orders, ${done.items} items attributed`);
      if (done.setAside > 0) log(`tally: attribution: ${done.setAside} orders set aside, their data cannot be attributed (npm run rollups:verify lists them)`);
    },
  });
}
