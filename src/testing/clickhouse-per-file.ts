// Runs before each ClickHouse test file (after database-per-file.ts): an in-process ClickHouse
// (chdb) in a fresh data folder of its own, migrated, as CLICKHOUSE_URL, so the code under test
// runs with ClickHouse as its store. chdb opens one data folder per process, which is why this
// project runs each file in a process of its own (vitest.config.ts: pool "forks").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { closeClickhouse } from "@/server/store/clickhouse/client";
import { migrateClickhouse } from "@/server/store/clickhouse/migrate.sql";

const folder = mkdtempSync(path.join(tmpdir(), "tally-chdb-"));
process.env.CLICKHOUSE_URL = `chdb:${folder}`;

beforeAll(async () => {
  await migrateClickhouse();
});

afterAll(async () => {
  await closeClickhouse();
  rmSync(folder, { recursive: true, force: true });
});
