import { env } from "@/env";
import { type IntervalJob, startIntervalJob } from "@/server/interval-job";
import { jobLog } from "@/server/observability/log";
import { logUpkeep } from "./log-partitions.sql";

/** Hourly, and once shortly after start: the logs' partitions ahead, and their retention. */
export function startUpkeepLoop(log: (line: string) => void = jobLog("upkeep")): IntervalJob {
  return startIntervalJob({
    name: "upkeep",
    intervalMs: 3_600_000,
    firstDelayMs: 1_000,
    log,
    run: async () => {
      const done = await logUpkeep(new Date(), env().TALLY_LOG_RETENTION_DAYS);
      if (done.created.length > 0) log(`tally: upkeep: log partitions created: ${done.created.join(", ")}`);
      if (done.dropped.length > 0) log(`tally: upkeep: settled log partitions dropped: ${done.dropped.join(", ")}`);
    },
  });
}
