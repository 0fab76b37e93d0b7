// `npm run worker`: the background work in one process, for operators who run it apart from the
// web tier (docs/operations.md): settle, attribution, export and the log's partition upkeep.
// Start as many as the load needs, on any machines: settle shards, attribution batches and export
// destinations are each taken under a lock, so workers share the work without doing it twice.
// Set TALLY_SETTLE_INTERVAL_SECONDS=0 (and the other intervals) on the web tier to leave it to them.
import { env, exitOnEnvError } from "@/env";
import type { IntervalJob } from "@/server/core/interval-job";
import { disconnectDb } from "@/server/db/client";
import { startAttributionLoop } from "@/server/pipeline/attribute/attribution-loop";
import { startExportLoop } from "@/server/pipeline/export/job/export-loop";
import { startSettleLoop } from "@/server/pipeline/settle/settle-loop";
import { startUpkeepLoop } from "@/server/upkeep/upkeep-loop";

let config: ReturnType<typeof env>;
try {
  config = env();
} catch (error) {
  exitOnEnvError(error);
}

// A worker exists to work: an interval turned off for the web tier still runs here.
const settleSeconds = config.TALLY_SETTLE_INTERVAL_SECONDS || 1;
const attributionSeconds = config.TALLY_ATTRIBUTION_INTERVAL_SECONDS || 10;
const exportSeconds = config.TALLY_EXPORT_INTERVAL_SECONDS || 60;
const jobs: IntervalJob[] = [
  startSettleLoop(settleSeconds * 1000),
  startAttributionLoop(attributionSeconds * 1000),
  startExportLoop(exportSeconds * 1000),
  startUpkeepLoop(),
];
console.log(
  `tally: worker ${process.pid}: settling every ${settleSeconds} s, attributing every ${attributionSeconds} s, exporting every ${exportSeconds} s, partition upkeep hourly`,
);

const stop = (signal: string) => {
  console.log(`tally: worker ${process.pid}: ${signal}, stopping (work under way is rolled back and taken up by the next worker)`);
  for (const job of jobs) job.stop();
  void disconnectDb().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 10_000).unref();
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
// The loops' timers are unref'd: this keeps the process alive between runs.
setInterval(() => {}, 1 << 30);
