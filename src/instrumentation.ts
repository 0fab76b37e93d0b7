// Runs once when a Next.js server starts: a bad environment stops it here, with one line per
// problem, instead of failing on the first request. A long-running server also starts the
// attribution loop here (TALLY_ATTRIBUTION_INTERVAL_SECONDS; serverless uses the cron route).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env, exitOnEnvError } = await import("./env");
  let intervalSeconds = 0;
  try {
    intervalSeconds = env().TALLY_ATTRIBUTION_INTERVAL_SECONDS;
  } catch (error) {
    exitOnEnvError(error);
  }
  if (intervalSeconds > 0) {
    const { startAttributionLoop } = await import("./server/attribution/attribution-loop");
    startAttributionLoop(intervalSeconds * 1000);
  }
}
