// `npm run worker`: the background work in one process, for operators who run it apart from the
// web tier (docs/operations.md): settle, attribution, export, report jobs, the log's partition upkeep, and with
// ClickHouse as the store (CLICKHOUSE_URL) the shipper, whose schema it migrates at start.
// Start as many as the load needs, on any machines: settle shards, attribution batches and export
// destinations are each taken under a lock, so workers share the work without doing it twice.
// Set TALLY_SETTLE_INTERVAL_SECONDS=0 (and the other intervals) on the web tier to leave it to them.
import { env, exitOnEnvError } from "@/env";
import { keepOperatorTimeZone } from "@/server/accounts/account-time-zone";
import type { IntervalJob } from "@/server/core/interval-job";
import { disconnectDb } from "@/server/db/client";
import { startAttributionLoop } from "@/server/pipeline/attribute/attribution-loop";
import { startExportLoop } from "@/server/pipeline/export/job/export-loop";
import { startReportJobLoop } from "@/server/pipeline/report/jobs/report-job-loop";
import { startSettleLoop } from "@/server/pipeline/settle/settle-loop";
import { startShipLoop } from "@/server/pipeline/ship/ship-loop";
import { closeStore } from "@/server/store";
import { checkStoreZones, migrateStore } from "@/server/store/start-store";
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
const reportJobSeconds = config.TALLY_REPORT_JOBS_INTERVAL_SECONDS || 5;

// ClickHouse's schema before the first batch is shipped; a worker that cannot reach it stops
// here, saying why, rather than settle into an outbox nothing ships.
try {
  const applied = await migrateStore();
  if (applied !== null)
    console.log(`tally: worker ${process.pid}: ClickHouse migrations ${applied.length > 0 ? `applied: ${applied.join(", ")}` : "up to date"}`);
} catch (error) {
  console.error(`tally: worker ${process.pid}: ClickHouse migrations failed: ${(error as Error).message}`);
  process.exit(1);
}

// The operator's default zone (TALLY_DEFAULT_TIME_ZONE) among the report tables' zones, so the
// batches this worker settles are added to it too; a database away now is said, not fatal.
await keepOperatorTimeZone().catch((error: unknown) =>
  console.error(`tally: worker ${process.pid}: could not keep TALLY_DEFAULT_TIME_ZONE in report_zones: ${(error as Error).message}`),
);

// Kept zones Postgres's tz database no longer knows: left out before the first batch, logged by name.
await checkStoreZones().catch((error: unknown) =>
  console.error(`tally: worker ${process.pid}: could not check the kept time zones: ${(error as Error).message}`),
);

const shipLoop = startShipLoop(settleSeconds * 1000);
const jobs: IntervalJob[] = [
  startSettleLoop(settleSeconds * 1000),
  startAttributionLoop(attributionSeconds * 1000),
  startExportLoop(exportSeconds * 1000),
  startReportJobLoop(reportJobSeconds * 1000),
  startUpkeepLoop(),
  ...(shipLoop ? [shipLoop] : []),
];
console.log(
  `tally: worker ${process.pid}: settling every ${settleSeconds} s, attributing every ${attributionSeconds} s, exporting every ${exportSeconds} s, report jobs every ${reportJobSeconds} s, partition upkeep hourly${shipLoop ? `, shipping to ClickHouse every ${settleSeconds} s` : ""}`,
);

const stop = (signal: string) => {
  console.log(`tally: worker ${process.pid}: ${signal}, stopping (work under way is rolled back and taken up by the next worker)`);
  for (const job of jobs) job.stop();
  void Promise.allSettled([disconnectDb(), closeStore()]).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 10_000).unref();
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
// The loops' timers are unref'd: this keeps the process alive between runs.
setInterval(() => {}, 1 << 30);
