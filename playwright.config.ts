import { defineConfig, devices } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3100);
/** The e2e database's port; tests read what the browser caused through it (e2e/database.ts). */
export const E2E_PG_PORT = Number(process.env.E2E_PG_PORT ?? 54339);

// Debian's Chromium: Playwright cannot download its own browser on this kind of machine.
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  timeout: 60_000,
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    screenshot: "on",
    trace: "retain-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: { ...devices["Desktop Chrome"], launchOptions: { executablePath: chromiumPath, args: chromiumArgs } },
    },
  ],
  // The production build (`next build` runs first in `npm run test:e2e`) on a throwaway embedded
  // Postgres with migrations and demo data, stopped (Next.js, then Postgres) when the run ends.
  webServer: {
    command: `node --import tsx src/cli/app.ts start --ephemeral --port ${PORT} --pg-port ${E2E_PG_PORT}`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    // The specs shop in the demo store, which a production server serves only when asked; the
    // launcher generates the production keys itself (start mode).
    env: { TALLY_DEMO: "1" },
  },
});
