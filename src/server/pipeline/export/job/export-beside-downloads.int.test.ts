// The export job beside report downloads on the same process's bulk pool: an account holding all
// the downloads it may (DATABASE_BULK_POOL_SIZE - 1, every one stalled on a client that reads
// nothing) leaves the export its connection, and every due run is delivered.

import sql from "sql-template-tag";
import { afterAll, describe, expect, it } from "vitest";
import { env } from "@/env";
import { bulkPool } from "@/server/db/pg-pool";
import { openReportDownload } from "@/server/pipeline/report/report-download";
import { reportStatement } from "@/server/store/postgres/report-runner";
import { localBucketsForTests, twoDayOldDestination } from "@/testing/export-bucket";
import { shopWithTraffic } from "@/testing/export-traffic";
import { runDueExports } from "./run-exports";

const T0 = Date.now();
const bucket = localBucketsForTests(["beside-downloads"]);
const held: AsyncIterableIterator<unknown>[] = [];
afterAll(async () => {
  for (const download of held) await download.return?.();
});

describe("the export beside an account's downloads", () => {
  it("delivers every due run while the account holds every download connection it may", async () => {
    const shop = await shopWithTraffic(T0);
    const destination = await twoDayOldDestination({
      accountId: shop.publisher.id,
      bucket: "beside-downloads",
      endpoint: bucket.s3.endpoint,
      prefix: "t",
      t0: T0,
    });
    const rows = reportStatement(sql`SELECT g AS n FROM generate_series(1, 100000) g`, (raw) => raw);
    const share = env().DATABASE_BULK_POOL_SIZE - 1;
    for (let key = 0; key < share; key += 1) {
      const download = await openReportDownload(rows, { caller: `key:key_${key}`, account: "acc_heavy" });
      held.push(download);
      await download.next(); // read once, then never again: it holds its connection
    }
    await expect(openReportDownload(rows, { caller: "key:key_more", account: "acc_heavy" })).rejects.toMatchObject({ code: "too_many_requests" });
    expect(bulkPool().totalCount - bulkPool().idleCount).toBe(share);

    const { runs } = await runDueExports({ now: () => new Date(T0 + 2 * 86_400_000), destinationId: destination.id });
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.map((run) => [run.type, run.status, run.error])).toEqual(runs.map((run) => [run.type, "succeeded", null]));
  });
});
