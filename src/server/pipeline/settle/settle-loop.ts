import { type IntervalJob, startIntervalJob } from "@/server/core/interval-job";
import { jobLog } from "@/server/core/log";
import { settlePending } from "./settle-pending";
import { oldestUnsettled } from "./settled-horizon.sql";

/**
 * Settles accepted beacons every `intervalMs` inside a long-running server or `npm run worker`.
 * Serverless deployments call the cron route instead.
 */
export function startSettleLoop(intervalMs: number, log: (line: string) => void = jobLog("settle")): IntervalJob {
  return startIntervalJob({
    name: "settle",
    intervalMs,
    firstDelayMs: 500,
    log,
    run: async () => {
      // One query instead of seventeen transactions when nothing waits (most ticks of a quiet server).
      if ((await oldestUnsettled()) === null) return;
      const done = await settlePending();
      if (done.setAside > 0) log(`tally: settle: ${done.setAside} beacons and orders set aside (npm run rollups:verify lists them)`);
    },
  });
}
