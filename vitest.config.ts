import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "prisma/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["src/**/*.int.test.ts"],
          exclude: ["**/*.ch.int.test.ts", "**/node_modules/**"],
          // One embedded Postgres for the run; each test file gets its own database cloned from
          // a migrated template (src/testing/).
          globalSetup: ["src/testing/global-postgres.ts"],
          setupFiles: ["src/testing/database-per-file.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          // ClickHouse as the store (chdb in-process): `npm run test:clickhouse`, and part of `npm test`.
          name: "clickhouse",
          include: ["src/**/*.ch.int.test.ts"],
          globalSetup: ["src/testing/global-postgres.ts"],
          setupFiles: ["src/testing/database-per-file.ts", "src/testing/clickhouse-per-file.ts"],
          // chdb opens one data folder per process, and crashed on a second thread: a process per file.
          pool: "forks",
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
