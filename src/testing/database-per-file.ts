// Runs before each integration test file: a fresh database cloned from the migrated template,
// exposed as DATABASE_URL so the code under test uses it through the ordinary env module.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, inject } from "vitest";
import { dropDatabase, ensureDatabase } from "@/cli/local/embedded-postgres";
import { disconnectDb } from "@/server/db/client";

const adminUrl = inject("pgAdminUrl");
const database = `tally_test_${randomBytes(6).toString("hex")}`;
const url = new URL(adminUrl);
url.pathname = `/${database}`;
process.env.DATABASE_URL = url.toString();

beforeAll(async () => {
  await ensureDatabase(adminUrl, database, inject("pgTemplate"));
});

afterAll(async () => {
  await disconnectDb();
  await dropDatabase(adminUrl, database);
});
