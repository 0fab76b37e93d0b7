import type pg from "pg";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { bulkPool, pgPool } from "@/server/db/pg-pool";
import { destinationWithSecret } from "@/server/pipeline/export/destinations/destinations";
import { scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { exportTestBed } from "@/testing/export-bucket";
import { publisherWithEvents } from "@/testing/export-traffic";
import { deliverBatch } from "./deliver-batch";
import { runDueExports } from "./run-exports";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const { bucket, BUCKET, YESTERDAY, later: LATER, destinationFor, eventIdsIn } = exportTestBed();

describe("an event batch", () => {
  it("ends where its rows reach the cap, and the rest follows in the next batch; one millisecond is never divided", async () => {
    const t1 = YESTERDAY + 10 * HOUR_MS;
    const t2 = t1 + HOUR_MS;
    const t3 = t2 + HOUR_MS;
    const shop = await publisherWithEvents([t1, t2, t2, t2, t3]);
    const destination = await destinationFor(shop.publisher.id, ["ad_events"]);
    const { runs } = await runDueExports({ now: LATER, destinationId: destination.id, maxRowsPerBatch: 2, rowsPerFile: 10 });
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    // Contiguous ranges: each batch starts where the one before ended.
    for (let i = 1; i < runs.length; i += 1) expect(runs[i]!.rangeStart).toBe(runs[i - 1]!.rangeEnd);
    const withRows = runs.filter((r) => r.rows > 0);
    expect(withRows.map((r) => r.rows)).toEqual([1, 3, 1]);
    // The first ends just before the first millisecond that would take it past 2 rows; three rows of one millisecond go whole.
    expect(withRows[0]!.rangeEnd).toBe(new Date(t2 - 1).toISOString());
    expect(withRows[1]!.rangeEnd).toBe(new Date(t2).toISOString());
    const byRun = [];
    for (const r of withRows) byRun.push(await eventIdsIn((await db.exportRun.findUniqueOrThrow({ where: { id: r.runId } })).keys));
    expect(byRun.map((ids) => ids.sort())).toEqual([[shop.ids[0]], shop.ids.slice(1, 4).sort(), [shop.ids[4]]]);
  });

  it("is planned again, with new keys and the old ones deleted, when rows were committed late into its range", async () => {
    const shop = await publisherWithEvents([YESTERDAY + 10 * HOUR_MS, YESTERDAY + 11 * HOUR_MS, YESTERDAY + 12 * HOUR_MS]);
    const destination = await destinationFor(shop.publisher.id, ["ad_events"]);
    const { failed, oldKeys } = await interruptAfterFirstFile(destination.id, 1);
    expect(failed.plannedRows).toBe(3n);
    expect(oldKeys).toHaveLength(3);

    // A row committed late into the planned range.
    const late = await shop.add(YESTERDAY + 11 * HOUR_MS + 30 * 60_000, "late");
    const second = await runDueExports({ now: () => new Date(LATER().getTime() + 10 * 60_000), destinationId: destination.id, rowsPerFile: 1 });
    expect(second.runs[0]).toMatchObject({ runId: failed.id, status: "succeeded", attempt: 2, rows: 4, files: 4 });
    await expectReplanned(destination.prefix, failed.id, oldKeys, 4, [shop.ids[0]!, shop.ids[1]!, late, shop.ids[2]!]);
  });

  it("is planned again when its files no longer match the rows per file", async () => {
    const shop = await publisherWithEvents([YESTERDAY + 10 * HOUR_MS, YESTERDAY + 11 * HOUR_MS, YESTERDAY + 12 * HOUR_MS]);
    const destination = await destinationFor(shop.publisher.id, ["ad_events"]);
    const { failed, oldKeys } = await interruptAfterFirstFile(destination.id, 1);
    const second = await runDueExports({ now: () => new Date(LATER().getTime() + 10 * 60_000), destinationId: destination.id, rowsPerFile: 2 });
    expect(second.runs[0]).toMatchObject({ runId: failed.id, status: "succeeded", attempt: 2, rows: 3, files: 2 });
    await expectReplanned(destination.prefix, failed.id, oldKeys, 2, shop.ids);
  });

  it("stops before its marker, saying so, when its rows differ from the plan while they are read", async () => {
    const shop = await publisherWithEvents([YESTERDAY + 10 * HOUR_MS, YESTERDAY + 11 * HOUR_MS, YESTERDAY + 12 * HOUR_MS]);
    const destination = (await destinationWithSecret((await destinationFor(shop.publisher.id, ["ad_events"])).id))!;
    const scope = await scopeOfAccount(destination.accountId);
    const folder = `${destination.prefix}ad_events/x/`;
    const run = (plannedRows: number) => ({
      id: "exr_test",
      type: "ad_events" as const,
      rangeStart: new Date(YESTERDAY),
      rangeEnd: new Date(YESTERDAY + DAY_MS),
      plannedRows,
      exclude: [],
      staleKeys: [],
      keys: Array.from({ length: plannedRows }, (_, i) => `${folder}${plannedRows}-${i}.snappy.parquet`),
    });
    // More rows than planned: none of them written past the plan, no marker.
    expect(await deliverBatch(destination, scope, run(2), { rowsPerFile: 1 })).toEqual({ status: "changed", reason: "more rows than the 2 planned" });
    // Fewer: the files so far, but neither the last planned file nor the marker.
    expect(await deliverBatch(destination, scope, run(4), { rowsPerFile: 1 })).toEqual({ status: "changed", reason: "3 rows where 4 were planned" });
    expect(await bucket.listKeys(BUCKET, folder)).toEqual(run(4).keys.slice(0, 3).sort());
    // As planned: every file, then the marker.
    expect(await deliverBatch(destination, scope, { ...run(3), staleKeys: run(4).keys }, { rowsPerFile: 1 })).toMatchObject({
      status: "delivered",
      rows: 3,
      files: 3,
    });
    expect(await bucket.listKeys(BUCKET, folder)).toEqual([...run(3).keys, `${folder}_SUCCESS`].sort());
  });

  it("reads its rows on the bulk pool; the request pool only keeps the books, and looks up whose rows once per run", async () => {
    const shop = await publisherWithEvents([YESTERDAY + 10 * HOUR_MS, YESTERDAY + 11 * HOUR_MS]);
    const destination = await destinationFor(shop.publisher.id, ["ad_events", "orders", "order_items", "campaigns"]);
    const seen = { request: [] as string[], bulk: [] as string[] };
    const record = (pool: pg.Pool, into: string[]) => {
      const query = pool.query.bind(pool);
      pool.query = ((...args: Parameters<typeof query>) => {
        const text = typeof args[0] === "string" ? args[0] : (args[0] as { text: string }).text;
        into.push(text);
        return query(...args);
      }) as typeof pool.query;
      return () => {
        pool.query = query;
      };
    };
    const restore = [record(pgPool(), seen.request), record(bulkPool(), seen.bulk)];
    let runCount = 0;
    try {
      const { runs } = await runDueExports({ now: LATER, destinationId: destination.id, maxRowsPerBatch: 1 });
      runCount = runs.length;
      expect(runs.every((r) => r.status === "succeeded")).toBe(true);
      expect(runs.reduce((sum, r) => sum + (r.type === "ad_events" ? r.rows : 0), 0)).toBe(2);
    } finally {
      for (const undo of restore) undo();
    }
    const readsData = /\b(ad_events|conversions|attributions|daily_campaign_totals|daily_ad_totals|daily_publisher_orders)\b/;
    expect(seen.request.filter((sql) => readsData.test(sql))).toEqual([]);
    expect(seen.request.some((sql) => /export_runs/.test(sql))).toBe(true);
    // The account's scope (accountCaller's lookup) once per run, whatever the run's steps.
    expect(runCount).toBeGreaterThan(4);
    expect(seen.request.filter((sql) => /FROM accounts WHERE id =/.test(sql))).toHaveLength(runCount);
    // Counts of every type, and the cap's search for where a batch ends.
    for (const table of ["ad_events e", "conversions c", "attributions a", "daily_campaign_totals"]) {
      expect(seen.bulk.some((sql) => sql.includes("count(*)") && sql.includes(table))).toBe(true);
    }
    expect(seen.bulk.some((sql) => /ORDER BY at OFFSET/.test(sql))).toBe(true);
  });
});

/** Runs a destination's export until its batch with rows fails right after uploading its first file. */
async function interruptAfterFirstFile(destinationId: string, rowsPerFile: number) {
  let uploaded = 0;
  const first = await runDueExports({
    now: LATER,
    destinationId,
    rowsPerFile,
    onFile: () => {
      uploaded += 1;
      throw new Error("the worker stopped");
    },
  });
  expect(uploaded).toBe(1);
  const failedRun = first.runs.at(-1)!;
  expect(failedRun).toMatchObject({ status: "failed", error: "Error: the worker stopped" });
  const failed = await db.exportRun.findUniqueOrThrow({ where: { id: failedRun.runId } });
  expect(await bucket.listKeys(BUCKET, failed.keys[0]!)).toEqual([failed.keys[0]]);
  return { failed, oldKeys: failed.keys };
}

/** The run delivered under new keys in a new folder, none of the old plan's objects left, each row once. */
async function expectReplanned(prefix: string, runId: string, oldKeys: string[], files: number, ids: string[]) {
  const run = await db.exportRun.findUniqueOrThrow({ where: { id: runId } });
  expect(run.keys).toHaveLength(files);
  expect(run.keys.filter((k) => oldKeys.includes(k))).toEqual([]);
  expect(run).toMatchObject({ status: "succeeded", plannedRows: BigInt(ids.length), staleKeys: [] });
  const oldFolder = oldKeys[0]!.slice(0, oldKeys[0]!.lastIndexOf("/") + 1);
  const newFolder = run.keys[0]!.slice(0, run.keys[0]!.lastIndexOf("/") + 1);
  expect(newFolder).not.toBe(oldFolder);
  expect(await bucket.listKeys(BUCKET, oldFolder)).toEqual([]);
  expect(await bucket.listKeys(BUCKET, newFolder)).toEqual([...run.keys, `${newFolder}_SUCCESS`].sort());
  expect(await eventIdsIn(await bucket.listKeys(BUCKET, prefix))).toEqual(ids);
}
