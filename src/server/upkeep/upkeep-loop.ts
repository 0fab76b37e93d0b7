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
      const { moved, failed } = done.zonesBackfilled;
      if (moved.length > 0)
        log(`tally: upkeep: time zones' report rows moved back: ${moved.map((m) => `${m.zone} ${m.grain} from ${m.from.toISOString()}`).join(", ")}`);
      for (const failure of failed) log(`tally: upkeep: time zone ${failure.zone} (${failure.grain}) not moved back, left for the next run: ${failure.error}`);
    },
  });
}
