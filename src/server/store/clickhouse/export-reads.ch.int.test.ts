// The export's reads from ClickHouse against Postgres's: traffic and orders settled through the
// real pipeline in ClickHouse mode and shipped, then every read of every layout (counts, rows and
// cells, rows by id range, ids for splitting, where a capped batch ends) asked of both stores for
// publishers and advertisers. Postgres keeps the raw rows in ClickHouse mode, so its reads see the
// same events; two of acme's orders have a halo line, which neither store exports. Then a whole
// export run to a real S3 API through each store, read back with DuckDB.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { addDays, DAY_MS, dayStart, utcDay } from "@/server/core/days";
import { EVENT_TYPES, EXPORT_TYPES, type ExportTypeName } from "@/server/core/export-types";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { runDueExports } from "@/server/pipeline/export/job/run-exports";
import { scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import type { ExportBatch, RowFilter } from "@/server/store/export-rows";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import type { ReportScope } from "@/server/store/report-query";
import type { TallyStore } from "@/server/store/store";
import { duckdb, exportTestBed, fileList } from "@/testing/export-bucket";
import { publisherWithEvents, shopWithTraffic } from "@/testing/export-traffic";
import { seedAcme, seedHaloOrder } from "@/testing/report-fixture";
import { clickhouseStore } from "./clickhouse-store";

// The export run below goes once through each store: store() answers with the one chosen.
const chosen = vi.hoisted(() => ({ store: null as TallyStore | null }));
vi.mock("@/server/store", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/server/store")>();
  return { ...original, store: () => chosen.store ?? original.store() };
});

const bed = exportTestBed("lake");
const { T0 } = bed;

let acme: Awaited<ReturnType<typeof seedAcme>>;
let halo: Awaited<ReturnType<typeof seedHaloOrder>>;
let haloAlone: Awaited<ReturnType<typeof seedHaloOrder>>;
let shop: Awaited<ReturnType<typeof shopWithTraffic>>;
let sameMillisecond: Awaited<ReturnType<typeof publisherWithEvents>>;

/** Every page of a read, as one list. */
async function allRows(batch: ExportBatch, filter: RowFilter = {}, ordered = true): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const page of batch.read(filter, { ordered })) rows.push(...page);
  return rows;
}

/** What a batch answers: its rows as read and as cells, counts and ids under filters, and every split point. */
async function answers(batch: ExportBatch) {
  const rows = await allRows(batch);
  const cells = rows.map((row) => batch.cells(row));
  const count = await batch.count();
  const ids: (string | null)[] = [];
  for (let offset = 0; offset <= count; offset++) ids.push(await batch.idAt({}, offset));
  const known = ids.filter((id): id is string => id !== null);
  const before = await Promise.all([...known, "0", "zzzz"].map((id) => batch.idBefore({}, id)));
  const middle = known[Math.floor(known.length / 2)] ?? null;
  const filters: RowFilter[] = [
    { exclude: known.slice(0, 1) },
    { after: middle },
    { upTo: middle },
    { exclude: known.slice(-1), after: known[0] ?? null, upTo: known.at(-1) ?? null },
  ];
  const filtered = [];
  for (const filter of filters) {
    filtered.push({
      count: await batch.count(filter),
      cells: (await allRows(batch, filter)).map((row) => batch.cells(row)),
      idAt: await batch.idAt(filter, 1),
      idBefore: middle === null ? null : await batch.idBefore(filter, middle),
    });
  }
  const unordered = (await allRows(batch, {}, false)).map((row) => JSON.stringify(batch.cells(row))).sort();
  return { rows, cells, count, ids, before, filtered, unordered };
}

beforeAll(async () => {
  acme = await seedAcme();
  halo = await seedHaloOrder(acme, { withOwnSku: true });
  haloAlone = await seedHaloOrder(acme, { withOwnSku: false });
  shop = await shopWithTraffic(T0);
  // Three counted impressions in one millisecond and one after: ties in time, ordered by id.
  const at = T0 - 2 * 3_600_000;
  sameMillisecond = await publisherWithEvents([at, at, at, at + 1]);
  const shipped = await store().shipping!.ship();
  expect(shipped.error).toBeNull();
  expect((await store().shipping!.state()).waiting).toBe(0);
  // Postgres's reports read its own rollups, which ClickHouse mode does not write: recounted
  // from the raw rows, so that the aggregates have figures on both sides.
  await postgresStore.rollups.rebuild("2026-11-01", utcDay(T0 + DAY_MS));
});

describe("the ClickHouse store's export reads", () => {
  const span = () => ({ rangeStart: new Date("2026-11-01T00:00:00Z"), rangeEnd: new Date(T0 + DAY_MS) });
  const accounts = () => [
    { name: "a publisher with a credited order", id: acme.shopAId },
    { name: "a publisher without orders", id: acme.shopBId },
    { name: "an advertiser with a credited order", id: acme.acmeId },
    { name: "an advertiser without orders", id: acme.otherId },
    { name: "the other shop's publisher", id: shop.publisher.id },
    { name: "the other shop's advertiser", id: shop.advertiser.id },
    { name: "a publisher with ties in time", id: sameMillisecond.publisher.id },
  ];

  it("is the store in use, and its raw rows are Postgres's", async () => {
    expect(store().name).toBe("clickhouse");
    expect(store().exports).toBe(clickhouseStore.exports);
  });

  for (const type of EVENT_TYPES) {
    it(`answers every read of ${type} batches as Postgres does, for every kind of account`, async () => {
      let rowsSeen = 0;
      for (const account of accounts()) {
        const scope = await scopeOfAccount(account.id);
        const fromClickhouse = await answers(clickhouseStore.exports.batch(type, scope, span()));
        const fromPostgres = await answers(postgresStore.exports.batch(type, scope, span()));
        expect(fromClickhouse, account.name).toEqual(fromPostgres);
        rowsSeen += fromPostgres.count;
      }
      expect(rowsSeen).toBeGreaterThan(0);
    });

    it(`ends capped ${type} batches where Postgres does, ties in one millisecond kept together`, async () => {
      for (const account of accounts()) {
        const scope: ReportScope = await scopeOfAccount(account.id);
        const range = { start: span().rangeStart, end: span().rangeEnd };
        const rows = await postgresStore.exports.batch(type, scope, span()).count();
        for (let cap = 0; cap <= rows; cap++) {
          const ends = [await clickhouseStore.exports.cappedEnd(type, scope, range, cap), await postgresStore.exports.cappedEnd(type, scope, range, cap)];
          expect(ends[0], `${account.name}, cap ${cap}`).toEqual(ends[1]);
        }
      }
    });
  }

  it("leaves halo lines out of the advertiser's order items and orders, as Postgres does, the campaign's own SKU sent", async () => {
    const scope = await scopeOfAccount(acme.acmeId);
    const { rows } = await pgPool().query<{ n: number }>(
      "SELECT count(*)::int AS n FROM attributions WHERE product_sku = ANY($1) AND match = 'halo' AND credited AND advertiser_id = $2",
      [[halo.sku, haloAlone.sku], acme.acmeId],
    );
    expect(rows[0]!.n).toBe(2);
    for (const exports of [clickhouseStore.exports, postgresStore.exports]) {
      const items = exports.batch("order_items", scope, span());
      const skus = (await allRows(items)).map((row) => items.cells(row)[4]);
      expect(skus).toContain(halo.ownSku);
      expect(skus).not.toContain(halo.sku);
      expect(skus).not.toContain(haloAlone.sku);
      // seedAcme's order and the one with the campaign's own SKU; not the order of a halo line alone.
      expect(await exports.batch("orders", scope, span()).count()).toBe(2);
    }
  });

  it("reads the ties in one millisecond in id order, and a capped batch never splits them", async () => {
    const scope = await scopeOfAccount(sameMillisecond.publisher.id);
    const batch = clickhouseStore.exports.batch("ad_events", scope, span());
    const ids = (await allRows(batch)).map((row) => (row as unknown[])[0]);
    expect(ids).toEqual([...sameMillisecond.ids.slice(0, 3).sort(), sameMillisecond.ids[3]]);
    // Capped at one row: the batch ends just before the millisecond, and the next takes it whole.
    const at = new Date(T0 - 2 * 3_600_000);
    const first = await clickhouseStore.exports.cappedEnd("ad_events", scope, { start: span().rangeStart, end: span().rangeEnd }, 1);
    expect(first).toEqual(new Date(at.getTime() - 1));
    expect(await clickhouseStore.exports.cappedEnd("ad_events", scope, { start: first, end: span().rangeEnd }, 1)).toEqual(at);
  });

  it("answers the daily aggregates through the store's report reads, as Postgres's report statements", async () => {
    const days = ["2026-11-09", "2026-11-10", utcDay(T0 - DAY_MS), utcDay(T0)];
    let rowsSeen = 0;
    for (const account of accounts()) {
      const scope = await scopeOfAccount(account.id);
      for (const type of ["advertisers", "campaigns", "ads"] as const) {
        for (const day of days) {
          const range = { rangeStart: dayStart(day), rangeEnd: dayStart(addDays(day, 1)) };
          const fromClickhouse = await answers(clickhouseStore.exports.batch(type, scope, range));
          const fromPostgres = await answers(postgresStore.exports.batch(type, scope, range));
          expect(fromClickhouse.cells, `${account.name} ${type} ${day}`).toEqual(fromPostgres.cells);
          expect({ ...fromClickhouse, rows: null }, `${account.name} ${type} ${day}`).toEqual({ ...fromPostgres, rows: null });
          rowsSeen += fromPostgres.count;
        }
      }
    }
    expect(rowsSeen).toBeGreaterThan(0);
  });
});

describe("an export run with ClickHouse as the store", () => {
  /** Runs every due batch of a new destination of `accountId` through `through`; the files' keys by type, in order. */
  async function exportThrough(through: TallyStore, accountId: string, types: readonly ExportTypeName[]) {
    const destination = await bed.destinationFor(accountId, [...types]);
    chosen.store = through;
    try {
      const { runs } = await runDueExports({ now: bed.later, destinationId: destination.id, rowsPerFile: 2 });
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.every((run) => run.status === "succeeded")).toBe(true);
    } finally {
      chosen.store = null;
    }
    // Each run's keys in file order (a batch's file names do not sort in that order), runs by range.
    const runs = await db.exportRun.findMany({ where: { destinationId: destination.id }, orderBy: [{ type: "asc" }, { rangeStart: "asc" }] });
    return Object.fromEntries(types.map((type) => [type, runs.filter((run) => run.type === type).flatMap((run) => run.keys)]));
  }

  /** Each file's rows, read with DuckDB, in key order. */
  async function filesOf(keys: string[]) {
    const sql = await duckdb();
    const files = await bed.bucket.download(bed.BUCKET, keys);
    const read = (file: string) => (file.endsWith(".csv") ? `read_csv('${file}', header = true, all_varchar = true)` : `read_parquet(${fileList([file])})`);
    return Promise.all(files.map((file) => sql(`SELECT * FROM ${read(file)}`)));
  }

  for (const account of [
    { name: "a publisher", id: () => shop.publisher.id, types: EXPORT_TYPES },
    { name: "an advertiser", id: () => shop.advertiser.id, types: EXPORT_TYPES },
  ]) {
    it(`writes the same files for ${account.name} as with Postgres as the store`, async () => {
      const fromClickhouse = await exportThrough(clickhouseStore, account.id(), account.types);
      const fromPostgres = await exportThrough(postgresStore, account.id(), account.types);
      let eventRows = 0;
      for (const type of account.types) {
        expect(fromClickhouse[type]!.length, type).toBe(fromPostgres[type]!.length);
        const clickhouseFiles = await filesOf(fromClickhouse[type]!);
        expect(clickhouseFiles, type).toEqual(await filesOf(fromPostgres[type]!));
        if ((EVENT_TYPES as readonly string[]).includes(type)) eventRows += clickhouseFiles.flat().length;
      }
      // 7 counted events, the credited order and its credited line.
      expect(eventRows).toBe(9);
    });
  }

  it("delivers every counted event of the advertiser once", async () => {
    const destination = await bed.destinationFor(shop.advertiser.id, ["ad_events"]);
    const { runs } = await runDueExports({ now: bed.later, destinationId: destination.id });
    expect(runs.every((run) => run.status === "succeeded")).toBe(true);
    const counted = await db.adEvent.findMany({ where: { advertiserId: shop.advertiser.id, status: "counted" }, orderBy: [{ createdAt: "asc" }] });
    const exported = await bed.eventIdsIn(await bed.bucket.listKeys(bed.BUCKET, destination.prefix));
    expect(exported.sort()).toEqual(counted.map((event) => event.eventId).sort());
    expect(exported).toHaveLength(7);
  });
});
