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
// The tests' S3 (s3rver) listens on 127.0.0.1; the tests of that rule turn the allowance off per call.
process.env.TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS = "1";
// The report tests ask for dozens of pages on one key within a second; the rate limit's own tests
// (src/server/http/report-limits.int.test.ts) set it for their file.
process.env.TALLY_REPORT_RATE_PER_SECOND ??= "0";

beforeAll(async () => {
  await ensureDatabase(adminUrl, database, inject("pgTemplate"));
});

afterAll(async () => {
  await disconnectDb();
  await dropDatabase(adminUrl, database);
});
