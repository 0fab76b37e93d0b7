import { defineConfig, devices } from "@playwright/test";

// Fixed ports below Linux's ephemeral range (32768-60999): the hostile suite, run beside this one
// by `npm test`, takes its ports from that range, and must never be handed one of these.
const PORT = Number(process.env.E2E_PORT ?? 3100);
/** The e2e database's port; tests read what the browser caused through it (e2e/database.ts). */
export const E2E_PG_PORT = Number(process.env.E2E_PG_PORT ?? 15439);
/** The second server's ports: ClickHouse as the store (in-process chdb), its own embedded Postgres. */
const CLICKHOUSE_PORT = Number(process.env.E2E_CLICKHOUSE_PORT ?? 3101);
export const E2E_CLICKHOUSE_PG_PORT = Number(process.env.E2E_CLICKHOUSE_PG_PORT ?? 15440);

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
      testIgnore: /\.ch\.spec\.ts$/,
      use: { ...devices["Desktop Chrome"], launchOptions: { executablePath: chromiumPath, args: chromiumArgs } },
    },
    {
      // The same app with ClickHouse as the store: one spec, traffic to the dashboard's figures.
      name: "clickhouse",
      testMatch: /\.ch\.spec\.ts$/,
      use: {
        ...devices["Desktop Chrome"],
        baseURL: `http://127.0.0.1:${CLICKHOUSE_PORT}`,
        launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
      },
    },
  ],
  // The production build (`next build` runs first in `npm run test:e2e`) on a throwaway embedded
  // Postgres with migrations and demo data, stopped (Next.js, then Postgres) when the run ends;
  // and the same build with ClickHouse as the store (--clickhouse: chdb in a temporary folder,
  // migrated by the launcher, opened by that server alone) on its own ports.
  webServer: [
    {
      command: `node --import tsx src/cli/app.ts start --ephemeral --port ${PORT} --pg-port ${E2E_PG_PORT}`,
      url: `http://127.0.0.1:${PORT}/api/health`,
      timeout: 180_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
      // The specs shop in the demo store, which a production server serves only when asked; the
      // launcher generates the production keys itself (start mode). The specs sign in from one
      // address far more often in 15 minutes than a person would; the per-address limit itself is
      // tested by the integration and hostile suites.
      env: { TALLY_DEMO: "1", CLICKHOUSE_URL: "", TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS: "1000" },
    },
    {
      command: `node --import tsx src/cli/app.ts start --ephemeral --clickhouse --no-s3 --port ${CLICKHOUSE_PORT} --pg-port ${E2E_CLICKHOUSE_PG_PORT}`,
      url: `http://127.0.0.1:${CLICKHOUSE_PORT}/api/health`,
      timeout: 180_000,
      reuseExistingServer: false,
      stdout: "pipe",
      stderr: "pipe",
      gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
      // Health's details (the store, the shipper's lag) need the metrics token.
      env: { TALLY_DEMO: "1", CLICKHOUSE_URL: "", TALLY_METRICS_TOKEN: "e2e-clickhouse-metrics-token" },
    },
  ],
});
