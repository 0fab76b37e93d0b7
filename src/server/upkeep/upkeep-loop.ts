import { type IntervalJob, startIntervalJob } from "@/server/core/interval-job";
import { jobLog } from "@/server/core/log";
import { upkeep } from "./upkeep";

/** Hourly, and once shortly after start: day partitions ahead, and retention (upkeep.ts). */
export function startUpkeepLoop(log: (line: string) => void = jobLog("upkeep")): IntervalJob {
  return startIntervalJob({
    name: "upkeep",
    intervalMs: 3_600_000,
    firstDelayMs: 1_000,
    log,
    run: async () => {
      const done = await upkeep(new Date());
      if (done.created.length > 0) log(`tally: upkeep: partitions created: ${done.created.join(", ")}`);
      if (done.dropped.length > 0) log(`tally: upkeep: partitions dropped: ${done.dropped.join(", ")}`);
      const { records, orders } = done.setAsideDeleted;
      if (records + orders > 0)
        log(`tally: upkeep: set-aside records deleted past retention: ${records} beacons and orders, ${orders} orders attribution set aside`);
    },
  });
}
