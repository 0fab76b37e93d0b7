// Runs once when a Next.js server starts: a bad environment stops it here, with one line per
// problem, instead of failing on the first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env, exitOnEnvError } = await import("./env");
  try {
    env();
  } catch (error) {
    exitOnEnvError(error);
  }
}
