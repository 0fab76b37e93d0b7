// Runs once when a Next.js server starts: a bad environment stops it here, with one line per
// problem, instead of failing on the first request. A long-running server also starts the
// settle, attribution and export loops and the log's upkeep here (TALLY_SETTLE_INTERVAL_SECONDS,
// TALLY_ATTRIBUTION_INTERVAL_SECONDS, TALLY_EXPORT_INTERVAL_SECONDS, and the report jobs'
// TALLY_REPORT_JOBS_INTERVAL_SECONDS; serverless uses the cron
// routes, and `npm run worker` runs them apart from the web tier). With ClickHouse as the store
// (CLICKHOUSE_URL) its schema is migrated here and the shipper runs beside settling. A server that
// cannot tell clients' addresses apart says so here (client-address.ts).
export async function register(): Promise<void> {
  // biome-ignore lint/style/noProcessEnv: Next.js sets NEXT_RUNTIME to tell its runtimes apart; the edge runtime must not load env.ts.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env, exitOnEnvError } = await import("./env");
  let intervalSeconds = 0;
  let exportSeconds = 0;
  let settleSeconds = 0;
  let reportJobSeconds = 0;
  try {
    intervalSeconds = env().TALLY_ATTRIBUTION_INTERVAL_SECONDS;
    exportSeconds = env().TALLY_EXPORT_INTERVAL_SECONDS;
    settleSeconds = env().TALLY_SETTLE_INTERVAL_SECONDS;
    reportJobSeconds = env().TALLY_REPORT_JOBS_INTERVAL_SECONDS;
  } catch (error) {
    exitOnEnvError(error);
  }
  // A `next start` (not Tally's server) with no proxy configured cannot tell clients apart.
  const { clientAddressWarning } = await import("@/server/http/client-address");
  const warning = clientAddressWarning();
  if (warning) {
    const { logger } = await import("@/server/core/log");
    logger().warn({ setting: "TALLY_TRUSTED_PROXY_HOPS" }, warning);
  }
  // The operator's default zone (TALLY_DEFAULT_TIME_ZONE) in the report tables' zones, so staff
  // views read days in it; a database away now does not stop the server (the next start keeps it).
  const { keepOperatorTimeZone } = await import("@/server/accounts/account-time-zone");
  await keepOperatorTimeZone().catch(async (error: unknown) => {
    const { logger } = await import("@/server/core/log");
    logger().error({ setting: "TALLY_DEFAULT_TIME_ZONE", cause: (error as Error).message }, "could not keep the default time zone in report_zones");
  });
  // Kept zones Postgres's tz database no longer knows, left out before the first batch (logged by name).
  const { checkStoreZones } = await import("@/server/store/start-store");
  await checkStoreZones().catch(async (error: unknown) => {
    const { logger } = await import("@/server/core/log");
    logger().error({ cause: (error as Error).message }, "could not check the kept time zones against Postgres's tz database");
  });
  if (env().CLICKHOUSE_URL) {
    // Before the first request, so reports find their tables; a ClickHouse away now does not stop
    // the server (beacons and orders do not need it): the shipper migrates once it answers.
    const { ensureStoreMigrated } = await import("@/server/store/start-store");
    const { logger } = await import("@/server/core/log");
    await ensureStoreMigrated().then(
      (applied) => logger().info({ store: "clickhouse", applied }, "clickhouse migrations up to date"),
      (error: unknown) => logger().error({ store: "clickhouse", cause: (error as Error).message }, "clickhouse migrations failed; the shipper tries again"),
    );
  }
  if (settleSeconds > 0) {
    const { startSettleLoop } = await import("@/server/pipeline/settle/settle-loop");
    const { startShipLoop } = await import("@/server/pipeline/ship/ship-loop");
    const { startUpkeepLoop } = await import("@/server/upkeep/upkeep-loop");
    startSettleLoop(settleSeconds * 1000);
    startShipLoop(settleSeconds * 1000);
    startUpkeepLoop();
  }
  if (intervalSeconds > 0) {
    const { startAttributionLoop } = await import("@/server/pipeline/attribute/attribution-loop");
    startAttributionLoop(intervalSeconds * 1000);
  }
  if (exportSeconds > 0) {
    const { startExportLoop } = await import("@/server/pipeline/export/job/export-loop");
    startExportLoop(exportSeconds * 1000);
  }
  if (reportJobSeconds > 0) {
    const { startReportJobLoop } = await import("@/server/pipeline/report/jobs/report-job-loop");
    startReportJobLoop(reportJobSeconds * 1000);
  }
}
