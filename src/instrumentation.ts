// Runs once when a Next.js server starts: a bad environment stops it here, with one line per
// problem, instead of failing on the first request. A long-running server also starts the
// attribution and export loops here (TALLY_ATTRIBUTION_INTERVAL_SECONDS,
// TALLY_EXPORT_INTERVAL_SECONDS; serverless uses the cron routes).
export async function register(): Promise<void> {
  // biome-ignore lint/style/noProcessEnv: Next.js sets NEXT_RUNTIME to tell its runtimes apart; the edge runtime must not load env.ts.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env, exitOnEnvError } = await import("./env");
  let intervalSeconds = 0;
  let exportSeconds = 0;
  try {
    intervalSeconds = env().TALLY_ATTRIBUTION_INTERVAL_SECONDS;
    exportSeconds = env().TALLY_EXPORT_INTERVAL_SECONDS;
  } catch (error) {
    exitOnEnvError(error);
  }
  if (intervalSeconds > 0) {
    const { startAttributionLoop } = await import("./server/attribution/attribution-loop");
    startAttributionLoop(intervalSeconds * 1000);
  }
  if (exportSeconds > 0) {
    const { startExportLoop } = await import("./server/export/export-loop");
    startExportLoop(exportSeconds * 1000);
  }
}
