// The daily aggregates in the account's zone, end to end against a real S3 API (s3rver), read back
// with DuckDB: an advertiser in São Paulo (UTC−3) gets each local day's CSV at 03:00 local the day
// after, holding the events of that local day (those 1 ms before and at local midnight on their
// own sides) with the report's figures for that day in that zone, dated by the local date, with a
// manifest naming the zone; and a change of zone between two days neither repeats nor skips one.
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, DAY_MS, startOfUtcDay } from "@/server/core/days";
import { localDay, startOfLocalDay, UTC } from "@/server/core/time-zones";
import { db } from "@/server/db/client";
import { destinationWithSecret } from "@/server/pipeline/export/destinations/destinations";
import { reportScope, scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { duckdb, localBucketsForTests, twoDayOldDestination } from "@/testing/export-bucket";
import { publisherWithEvents } from "@/testing/export-traffic";
import type { AggregateManifest } from "./deliver-batch";
import { planRun } from "./deliver-run";
import { backfillExports, runDueExports } from "./run-exports";
import { aggregateDay } from "./schedule";

const SAO_PAULO = "America/Sao_Paulo";
const HOUR_MS = 3_600_000;
const T0 = Date.now();
/** A São Paulo date four days ago: it, the days around it and their 03:00 are all in the past. */
const D = addDays(localDay(T0, SAO_PAULO), -4);
const midnight = (day: string, zone = SAO_PAULO) => startOfLocalDay(day, zone).getTime();
const bucket = localBucketsForTests(["zoned-data"]);
const { listKeys, download } = bucket;

describe("daily aggregates in the account's zone", () => {
  let shop: Awaited<ReturnType<typeof publisherWithEvents>>;
  let destinationId: string;
  const run = (at: number) => runDueExports({ now: () => new Date(at), destinationId });

  /** The CSV and manifest of the campaigns batch delivered for a local date (one batch per date). */
  async function delivered(day: string) {
    const keys = await listKeys("zoned-data", `tally/exports/campaigns/${day.replaceAll("-", "/")}/`);
    const csvKeys = keys.filter((key) => key.endsWith(".csv"));
    expect(csvKeys).toHaveLength(1);
    const [manifestFile, csvFile] = await download("zoned-data", [csvKeys[0]!.replace(/[^/]+$/, "_manifest.json"), csvKeys[0]!]);
    const { readFile } = await import("node:fs/promises");
    const manifest = JSON.parse(await readFile(manifestFile!, "utf8")) as AggregateManifest;
    const sql = await duckdb();
    const rows = await sql(`SELECT * FROM read_csv('${csvFile}', header = true, all_varchar = true)`);
    return { key: csvKeys[0]!, manifest, rows };
  }

  beforeAll(async () => {
    // The report tables are kept in São Paulo from a UTC midnight before the traffic, as they are
    // once an account reads in it.
    const since = new Date(startOfUtcDay(new Date(midnight(D))).getTime() - 2 * DAY_MS);
    await db.$executeRaw`INSERT INTO report_zones (zone, since, hours_since) VALUES (${SAO_PAULO}, ${since}, ${since})`;
    // Impressions 1 ms before São Paulo's midnight that begins D, at it, an hour after, 1 ms
    // before the midnight that ends D, and at it.
    shop = await publisherWithEvents([midnight(D) - 1, midnight(D), midnight(D) + HOUR_MS, midnight(addDays(D, 1)) - 1, midnight(addDays(D, 1))]);
    await db.account.update({ where: { id: shop.advertiser.id }, data: { timeZone: SAO_PAULO } });
    const destination = await twoDayOldDestination({
      accountId: shop.advertiser.id,
      bucket: "zoned-data",
      endpoint: bucket.s3.endpoint,
      prefix: "tally/exports",
      types: ["campaigns"],
      t0: T0,
    });
    destinationId = destination.id;
    // Made at noon on D in São Paulo: its first file is the local day before.
    await db.exportDestination.update({ where: { id: destinationId }, data: { createdAt: new Date(midnight(D) + 12 * HOUR_MS) } });
  });

  it("is not due at 02:59:59.999 local the day after, and is due at 03:00 local", async () => {
    const threeLocal = midnight(D) + 3 * HOUR_MS;
    expect(new Date(threeLocal).toISOString().slice(11, 16)).toBe("06:00"); // 03:00 in São Paulo is 06:00 UTC
    expect((await run(threeLocal - 1)).runs).toEqual([]);
    const { runs } = await run(threeLocal);
    expect(runs.map((r) => [r.status, r.day, r.timeZone, r.rangeStart, r.rangeEnd])).toEqual([
      ["succeeded", addDays(D, -1), SAO_PAULO, new Date(midnight(addDays(D, -1))).toISOString(), new Date(midnight(D)).toISOString()],
    ]);
    // D itself is due only at 03:00 local on the day after it.
    expect((await run(midnight(addDays(D, 1)) + 3 * HOUR_MS - 1)).runs).toEqual([]);
    expect((await run(midnight(addDays(D, 1)) + 3 * HOUR_MS)).runs.map((r) => r.rangeStart)).toEqual([new Date(midnight(D)).toISOString()]);
  });

  it("dates the file by the local day and writes a manifest naming the zone and the UTC moments the day spans", async () => {
    const { key, manifest, rows } = await delivered(D);
    expect(key).toMatch(new RegExp(`^tally/exports/campaigns/${D.replaceAll("-", "/")}/\\d{19}/[0-9a-f]{24}\\.csv$`));
    expect(manifest).toEqual({
      type: "campaigns",
      day: D,
      time_zone: SAO_PAULO,
      from: new Date(midnight(D)).toISOString(),
      to: new Date(midnight(addDays(D, 1))).toISOString(),
      rows: rows.length,
      files: [key],
    });
    expect(rows.every((row) => row.day === D)).toBe(true);
  });

  // Reads the report tables in São Paulo: passes with the store's reads in a zone (ReportQuery.zone).
  it("holds the events of the local day, each on its side of midnight, with the report's figures for that day in that zone", async () => {
    const scope = await reportScope({ accountId: shop.advertiser.id, accountKind: "advertiser" });
    const impressions: Record<string, string | undefined> = {};
    for (const day of [addDays(D, -1), D]) {
      const { rows } = await delivered(day);
      const query = {
        startDate: day,
        endDate: day,
        zone: SAO_PAULO,
        page: 1,
        perPage: 1000,
        orderBy: "name" as const,
        order: "asc" as const,
        download: true,
        ids: {},
      };
      const report = (await store().reports.campaigns(scope, query).page(query)).data;
      expect(rows.map((row) => [row.campaign_id, row.impressions_total, row.ad_revenue])).toEqual(
        report.map((r) => [r.campaign_id, String(r.impressions_total), String(r.ad_revenue)]),
      );
      impressions[day] = rows.find((row) => row.campaign_id === shop.campaign.id)?.impressions_total as string | undefined;
    }
    // 1 ms before D's midnight is the day before; midnight, an hour later and 1 ms before the next midnight are D.
    expect(impressions).toEqual({ [addDays(D, -1)]: "1", [D]: "3" });
  });

  it("after a change of zone between two days, delivers the next date in the new zone: none repeated, none skipped", async () => {
    // Now in UTC, whose D+1 began 3 hours before São Paulo's D ended.
    await db.account.update({ where: { id: shop.advertiser.id }, data: { timeZone: UTC } });
    const utcNext = aggregateDay(addDays(D, 1), UTC);
    expect((await run(utcNext.end.getTime() + 3 * HOUR_MS - 1)).runs).toEqual([]);
    expect((await run(utcNext.end.getTime() + 3 * HOUR_MS)).runs.map((r) => [r.rangeStart, r.rangeEnd])).toEqual([
      [utcNext.start.toISOString(), utcNext.end.toISOString()],
    ]);
    expect((await delivered(addDays(D, 1))).manifest).toMatchObject({ day: addDays(D, 1), time_zone: UTC });
    // And back to São Paulo, whose D+2 begins 3 hours after UTC's D+1 ended.
    await db.account.update({ where: { id: shop.advertiser.id }, data: { timeZone: SAO_PAULO } });
    const next = aggregateDay(addDays(D, 2), SAO_PAULO);
    expect((await run(next.end.getTime() + 3 * HOUR_MS)).runs.map((r) => [r.rangeStart, r.rangeEnd])).toEqual([
      [next.start.toISOString(), next.end.toISOString()],
    ]);
    expect((await delivered(addDays(D, 2))).manifest).toMatchObject({ day: addDays(D, 2), time_zone: SAO_PAULO });

    const stored = await db.exportRun.findMany({ where: { destinationId }, orderBy: { rangeEnd: "asc" } });
    expect(stored.map((r) => [localDay(r.rangeStart, r.timeZone!), r.timeZone, r.status])).toEqual([
      [addDays(D, -1), SAO_PAULO, "succeeded"],
      [D, SAO_PAULO, "succeeded"],
      [addDays(D, 1), UTC, "succeeded"],
      [addDays(D, 2), SAO_PAULO, "succeeded"],
    ]);
    const watermark = await db.exportWatermark.findUniqueOrThrow({ where: { destinationId_type: { destinationId, type: "campaigns" } } });
    expect([watermark.deliveredTo, watermark.timeZone]).toEqual([next.end, SAO_PAULO]);
  });

  it("delivers a day planned before the zone changed in the zone it was planned in, then goes on in the new one", async () => {
    // D+3 planned in São Paulo by a worker that died before uploading anything.
    const destination = (await destinationWithSecret(destinationId))!;
    const scope = await scopeOfAccount(shop.advertiser.id);
    const planned = aggregateDay(addDays(D, 3), SAO_PAULO);
    await planRun(destination, scope, "campaigns", planned, false, { rowsPerFile: 1_000_000, maxRowsPerBatch: 5_000_000 });
    await db.account.update({ where: { id: shop.advertiser.id }, data: { timeZone: "Asia/Kolkata" } });
    const kolkata = aggregateDay(addDays(D, 4), "Asia/Kolkata");
    const { runs } = await run(kolkata.end.getTime() + 3 * HOUR_MS);
    expect(runs.map((r) => [r.status, r.rangeStart, r.rangeEnd])).toEqual([
      ["succeeded", planned.start.toISOString(), planned.end.toISOString()],
      ["succeeded", kolkata.start.toISOString(), kolkata.end.toISOString()],
    ]);
    expect((await delivered(addDays(D, 3))).manifest).toMatchObject({ day: addDays(D, 3), time_zone: SAO_PAULO });
    expect((await delivered(addDays(D, 4))).manifest).toMatchObject({ day: addDays(D, 4), time_zone: "Asia/Kolkata" });
    // Nothing is left to deliver twice.
    expect((await run(kolkata.end.getTime() + 3 * HOUR_MS)).runs).toEqual([]);
  });

  it("backfills aggregates by local days of the account's zone, leaving the watermark where it is", async () => {
    const before = await db.exportWatermark.findUniqueOrThrow({ where: { destinationId_type: { destinationId, type: "campaigns" } } });
    const runs = await backfillExports({ destinationId, fromDay: D, toDay: D });
    const kolkata = aggregateDay(D, "Asia/Kolkata");
    expect(runs.map((r) => [r.status, r.rangeStart, r.rangeEnd])).toEqual([["succeeded", kolkata.start.toISOString(), kolkata.end.toISOString()]]);
    const stored = await db.exportRun.findUniqueOrThrow({ where: { id: runs[0]!.runId } });
    expect([stored.backfill, stored.timeZone]).toEqual([true, "Asia/Kolkata"]);
    expect(await db.exportWatermark.findUniqueOrThrow({ where: { destinationId_type: { destinationId, type: "campaigns" } } })).toEqual(before);
  });
});
