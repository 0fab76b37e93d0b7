// Rows the export cannot write: a value the file cannot hold, or one Postgres fails on while
// reading it (SQLSTATE class 22). The batch is split until each bad row stands alone; those rows
// are set aside with their reason and every other row is delivered exactly once. Real Postgres, a
// real S3 API (s3rver), files read back with DuckDB.

import { randomUUID } from "node:crypto";
import sql from "sql-template-tag";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { type BatchParts, exportBatch } from "@/server/store/postgres/export-batches.sql";
import { duckdb, exportTestBed, fileList } from "@/testing/export-bucket";
import { makePublisher } from "@/testing/fixtures";
import { recordAndSettleConversion } from "@/testing/settle";
import { isolateBadRows } from "./poison";
import { runDueExports } from "./run-exports";
import { setAsideExportRows } from "./set-aside-rows.sql";

const HOUR_MS = 3_600_000;
const { bucket, BUCKET, YESTERDAY, later: LATER, destinationFor } = exportTestBed();

describe("a row the export cannot write", () => {
  it("is set aside with its reason and counted on the run; every other row is delivered exactly once", async () => {
    const publisher = await makePublisher();
    const orders: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const at = YESTERDAY + (10 + i) * HOUR_MS;
      await recordAndSettleConversion(
        {
          publisher_id: publisher.id,
          user_id: `u${i}`,
          session_id: `s${i}`,
          order_id: `o-${randomUUID()}`,
          created_at: new Date(at - 60_000).toISOString(),
          channel: "online store",
          email_hashed: "a".repeat(64),
          items: [{ sku: "SKU-1", quantity: 1, price: 10, promotional_price: 10 }],
        },
        new Date(at),
      );
      const [row] = await db.$queryRaw<
        { event_id: string }[]
      >`SELECT event_id::text FROM conversions WHERE publisher_id = ${publisher.id} AND session_id = ${`s${i}`}`;
      await db.$executeRaw`UPDATE conversions SET received_at = ${new Date(at)} WHERE event_id = ${row!.event_id}::uuid`;
      orders.push(row!.event_id);
    }
    // Two orders whose time Parquet cannot hold (Postgres takes 'infinity'; a millisecond count cannot).
    const bad = [orders[2]!, orders[5]!];
    await db.$executeRaw`UPDATE conversions SET placed_at = 'infinity' WHERE event_id::text = ANY(${bad})`;
    const destination = await destinationFor(publisher.id, ["orders"]);

    const uploaded: string[] = [];
    const { runs } = await runDueExports({ now: LATER, destinationId: destination.id, rowsPerFile: 2, onFile: (f) => void uploaded.push(f.key) });
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    const run = runs.find((r) => r.setAsideRows > 0)!;
    const reason = "column placed_at: Infinity is not a time in milliseconds since 1970";
    expect(run).toMatchObject({ rows: 5, files: 3, setAsideRows: 2, setAside: [...bad].sort().map((id) => ({ id, reason, rows: 1 })) });
    const stored = await db.exportRun.findUniqueOrThrow({ where: { id: run.runId } });
    expect(stored).toMatchObject({ status: "succeeded", setAsideRows: 2, plannedRows: 5n, rows: 5n, staleKeys: [] });
    expect(stored.setAside).toEqual(run.setAside);

    // The first attempt uploaded a file before it met the bad row; the re-planned batch deleted it.
    const firstAttempt = uploaded.filter((key) => !stored.keys.includes(key));
    expect(firstAttempt).toHaveLength(1);
    const inBucket = await bucket.listKeys(BUCKET, destination.prefix);
    const planned = (await db.exportRun.findMany({ where: { destinationId: destination.id } })).flatMap((r) => r.keys);
    expect(inBucket.filter((k) => k.endsWith(".parquet"))).toEqual(planned.sort());
    expect(inBucket).not.toContain(firstAttempt[0]);
    expect(inBucket.filter((k) => k.endsWith("_SUCCESS"))).toHaveLength(
      new Set(inBucket.filter((k) => k.endsWith(".parquet")).map((k) => k.slice(0, k.lastIndexOf("/")))).size,
    );
    const sql = await duckdb();
    const files = await bucket.download(
      BUCKET,
      inBucket.filter((k) => k.endsWith(".parquet")),
    );
    const delivered = (await sql(`SELECT event_id FROM read_parquet(${fileList(files)}) ORDER BY placed_at`)).map((r) => String(r.event_id));
    expect(delivered.sort()).toEqual(orders.filter((id) => !bad.includes(id)).sort());
    // The destination is not held back: its watermark is past the batch.
    const watermark = await db.exportWatermark.findUniqueOrThrow({ where: { destinationId_type: { destinationId: destination.id, type: "orders" } } });
    expect(watermark.deliveredTo.getTime()).toBeGreaterThanOrEqual(stored.rangeEnd.getTime());
    // Operators see the rows, with their reason, where rollups:verify lists what the jobs set aside.
    const day = stored.startedAt.toISOString().slice(0, 10);
    const listed = await setAsideExportRows({ startDate: day, endDate: day });
    expect(listed.totalRows).toBeGreaterThanOrEqual(2);
    expect(listed.runs.find((r) => r.run_id === run.runId)).toMatchObject({
      destination_id: destination.id,
      account_id: publisher.id,
      type: "orders",
      rows: run.setAside,
    });
  });

  it("is found by splitting when Postgres itself fails on it (SQLSTATE class 22), and the split ends at each bad row", async () => {
    await db.$executeRawUnsafe("CREATE TABLE poison_rows (id int PRIMARY KEY, divisor int NOT NULL)");
    await db.$executeRawUnsafe("INSERT INTO poison_rows SELECT n, CASE WHEN n IN (17, 123, 124) THEN 0 ELSE n END FROM generate_series(1, 200) n");
    const parts: BatchParts = {
      select: sql`p.id::text AS id, 1000 / p.divisor AS share`,
      from: sql`poison_rows p`,
      where: sql`true`,
      order: sql`p.id`,
      id: sql`p.id::text`,
      cells: (raw) => [(raw as { id: string }).id, (raw as { share: number }).share],
    };
    const rows = exportBatch(parts, "advertisers");
    const found = await isolateBadRows(rows, []);
    expect(found).toEqual(["123", "124", "17"].map((id) => ({ id, reason: "division by zero (SQLSTATE 22012)", rows: 1 })));
    // Rows already set aside are not looked at again; a search stops at its limit, and the next
    // one (those rows excluded) finds the rest.
    expect(await isolateBadRows(rows, ["17", "123"])).toEqual([{ id: "124", reason: "division by zero (SQLSTATE 22012)", rows: 1 }]);
    const firstTwo = await isolateBadRows(rows, [], 2);
    expect(firstTwo.map((row) => row.id)).toEqual(["123", "124"]);
    expect(
      (
        await isolateBadRows(
          rows,
          firstTwo.map((row) => row.id),
          2,
        )
      ).map((row) => row.id),
    ).toEqual(["17"]);
    // An error that is not the data's (here, a column that does not exist) is not split: it fails as it is.
    await expect(isolateBadRows(exportBatch({ ...parts, select: sql`p.nothing` }, "advertisers"), [])).rejects.toMatchObject({ code: "42703" });
  });
});
