import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { attributePendingConversions } from "@/server/attribution/attribute-pending";
import { recordConversion } from "@/server/conversions/record-conversion";
import { db } from "@/server/db/client";
import { type EventKind, sessionHashOf } from "@/server/ingest/beacon-token";
import { recordBeacon } from "@/server/ingest/record-beacon";
import { campaignListingStatement } from "@/server/reports/campaign-listing.sql";
import { reportScope } from "@/server/reports/report-scope";
import { allReportRows } from "@/server/reports/rollup-totals.sql";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { createDestination, destinationWithSecret, getDestination, listDestinations, SECRET_MASK, updateDestination } from "./destinations";
import { type ExportRunSummary, runDueExports } from "./run-exports";
import { testConnection } from "./s3";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
const DAY_MS = 86_400_000;
const work = mkdtempSync(path.join(tmpdir(), "tally-export-test-"));
let s3: LocalS3;
const T0 = Date.now();
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const client = () =>
  new S3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });

async function listKeys(bucket: string, prefix = ""): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys.sort();
}

/** Downloads objects to local files (DuckDB reads them there, with no S3 extension to fetch). */
async function download(bucket: string, keys: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const key of keys) {
    const object = await client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const file = path.join(work, "downloads", bucket, key);
    rmSync(file, { force: true });
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
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
  s3 = await startLocalS3({ directory: path.join(work, "s3"), buckets: ["publisher-data", "brand-data", "faulty"] });
});
afterAll(async () => {
  await s3?.stop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
});

async function shopWithTraffic() {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const sku = `SKU-${randomUUID()}`;
  const { campaign, ad } = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [{ sku, name: "Grinder" }],
  });
  const site = publisher.sites[0]!.name;
  const beacon = (kind: EventKind, session: string, at: number, user?: string) =>
    recordBeacon({
      claims: {
        kind,
        requestId: randomUUID(),
        adId: ad.id,
        campaignId: campaign.id,
        advertiserId: advertiser.id,
        publisherId: publisher.id,
        site,
        placementName: "search-top",
        context: "search",
        adType: "product",
        adSize: null,
        issuedAt: Math.floor(at / 1000),
        sessionHash: sessionHashOf(session),
      },
      body: { session_id: session, ...(user ? { user_id: user } : {}) },
      userAgent: CHROME,
      now: new Date(at),
    });
  // Yesterday and today: 5 impressions, 2 clicks, 1 duplicate (not exported).
  const statuses = [
    await beacon("impression", "s1", T0 - DAY_MS - 3_600_000, "u1"),
    await beacon("impression", "s2", T0 - DAY_MS - 3_000_000),
    await beacon("impression", "s3", T0 - 3 * 3_600_000, "u3"),
    await beacon("impression", "s3", T0 - 3 * 3_600_000 + 1_000, "u3"),
    await beacon("click", "s3", T0 - 3 * 3_600_000 + 60_000, "u3"),
    await beacon("impression", "s4", T0 - 2 * 3_600_000),
    await beacon("impression", "s5", T0 - 90 * 60_000),
    await beacon("click", "s5", T0 - 80 * 60_000),
  ].map((b) => b.status);
  expect(statuses.filter((s) => s === "counted")).toHaveLength(7);
  await recordConversion(
    {
      publisher_id: publisher.id,
      user_id: "u3",
      session_id: "s3",
      order_id: `o-${randomUUID()}`,
      created_at: new Date(T0 - 3_600_000).toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update("u3@example.com").digest("hex"),
      items: [
        { sku, quantity: 2, price: 30, promotional_price: 25.5 },
        { sku: "NOT-ADVERTISED", quantity: 1, price: 4, promotional_price: 4 },
      ],
    },
    new Date(T0 - 3_500_000),
  );
  await attributePendingConversions({ settleMs: 0 });
  return { publisher, advertiser, campaign, ad };
}

/** Creates a destination as if made two days ago: its watermarks start before the shop's traffic. */
async function destinationFor(accountId: string, bucket: string, types?: string[]) {
  const destination = await createDestination({
    accountId,
    name: `Data lake ${bucket}`,
    bucket,
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    prefix: "tally/exports",
    credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
    ...(types ? { types } : {}),
  });
  await db.exportDestination.update({ where: { id: destination.id }, data: { createdAt: new Date(T0 - 2 * DAY_MS) } });
  return destination;
}

describe("export to a customer's bucket", () => {
  let shop: Awaited<ReturnType<typeof shopWithTraffic>>;
  let runs: ExportRunSummary[];
  let destinationId: string;
  const later = () => new Date(T0 + 2 * DAY_MS);

  beforeAll(async () => {
    shop = await shopWithTraffic();
    destinationId = (await destinationFor(shop.publisher.id, "publisher-data")).id;
    const lines: string[] = [];
    runs = (await runDueExports({ now: later, destinationId, rowsPerFile: 2, onFile: (f) => void lines.push(f.key) })).runs;
    expect(lines.length).toBeGreaterThan(0);
  });

  it("delivers every due batch of every type, and records each run", async () => {
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    const types = new Set(runs.map((r) => r.type));
    expect([...types].sort()).toEqual(["ad_events", "ads", "advertisers", "campaigns", "order_items", "orders"]);
    const stored = await db.exportRun.findMany({ where: { destinationId } });
    expect(stored).toHaveLength(runs.length);
    expect(stored.every((r) => r.status === "succeeded" && r.finishedAt !== null && r.durationMs !== null)).toBe(true);
    // A second call right after finds nothing due.
    expect((await runDueExports({ now: later, destinationId })).runs).toEqual([]);
  });

  it("writes Snappy Parquet with the layouts' exact columns, each row once, under TYPE/YYYY/MM/DD/TIMESTAMP_NS/", async () => {
    const keys = await listKeys("publisher-data", "tally/exports/ad_events/");
    const data = keys.filter((k) => k.endsWith(".snappy.parquet"));
    for (const key of data) expect(key).toMatch(/^tally\/exports\/ad_events\/\d{4}\/\d{2}\/\d{2}\/\d{19}\/[0-9a-f]{24}\.snappy\.parquet$/);
    // Every batch folder ends with _SUCCESS.
    const folders = new Set(data.map((k) => k.slice(0, k.lastIndexOf("/") + 1)));
    for (const folder of folders) expect(keys).toContain(`${folder}_SUCCESS`);

    const sql = await duckdb();
    const files = await download("publisher-data", data);
    expect(await sql(`SELECT DISTINCT compression FROM parquet_metadata(${fileList(files)})`)).toEqual([{ compression: "SNAPPY" }]);
    expect(await sql(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${fileList(files)}))`)).toEqual(
      [
        ["event_id", "VARCHAR"],
        ["session_id", "VARCHAR"],
        ["user_id", "VARCHAR"],
        ["ad_id", "VARCHAR"],
        ["campaign_id", "VARCHAR"],
        ["request_id", "VARCHAR"],
        ["ad_type", "VARCHAR"],
        ["placement_name", "VARCHAR"],
        ["context", "VARCHAR"],
        ["created_at", "TIMESTAMP WITH TIME ZONE"],
        ["site", "VARCHAR"],
      ].map(([column_name, column_type]) => ({ column_name, column_type })),
    );
    const counted = await db.adEvent.findMany({ where: { publisherId: shop.publisher.id, status: "counted" }, orderBy: { createdAt: "asc" } });
    const exported = await sql(
      `SELECT event_id, user_id, epoch_ms(created_at)::double AS created_ms, ad_id FROM read_parquet(${fileList(files)}) ORDER BY created_at`,
    );
    expect(exported).toEqual(counted.map((e) => ({ event_id: e.eventId, user_id: e.userId, created_ms: e.createdAt.getTime(), ad_id: e.adId })));
    expect(await sql(`SELECT count(*) = count(DISTINCT event_id) AS unique_ids FROM read_parquet(${fileList(files)})`)).toEqual([{ unique_ids: true }]);
  });

  it("writes orders and order items with money as doubles, unique on their de-duplication keys", async () => {
    const sql = await duckdb();
    const orderFiles = await download(
      "publisher-data",
      (await listKeys("publisher-data", "tally/exports/orders/")).filter((k) => k.endsWith(".parquet")),
    );
    const orders = await sql(`SELECT * FROM read_parquet(${fileList(orderFiles)})`);
    const stored = await db.conversion.findMany({ where: { publisherId: shop.publisher.id } });
    expect(orders.map((o) => o.order_id)).toEqual(stored.map((o) => o.orderId));
    expect(Object.keys(orders[0]!)).toEqual(["event_id", "session_id", "user_id", "order_id", "channel", "placed_at", "site"]);

    const itemFiles = await download(
      "publisher-data",
      (await listKeys("publisher-data", "tally/exports/order_items/")).filter((k) => k.endsWith(".parquet")),
    );
    const items = await sql(`SELECT * FROM read_parquet(${fileList(itemFiles)})`);
    expect(Object.keys(items[0]!)).toEqual([
      "event_id",
      "session_id",
      "user_id",
      "order_id",
      "product_sku",
      "ad_id",
      "campaign_id",
      "request_id",
      "ad_size",
      "ad_type",
      "placement_name",
      "context",
      "event_created_at",
      "price",
      "promotional_price",
      "quantity",
      "total_value",
    ]);
    // One credited line: 2 × 25.50; the unadvertised line is not an attribution.
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ price: 30, promotional_price: 25.5, quantity: 2, total_value: 51, ad_id: shop.ad.id, ad_size: null });
    const types = await sql(
      `SELECT column_name, column_type FROM (DESCRIBE SELECT price, quantity, event_created_at FROM read_parquet(${fileList(itemFiles)}))`,
    );
    expect(types.map((t) => t.column_type)).toEqual(["DOUBLE", "DOUBLE", "TIMESTAMP WITH TIME ZONE"]);
    expect(await sql(`SELECT count(*) = count(DISTINCT (order_id, product_sku)) AS unique_keys FROM read_parquet(${fileList(itemFiles)})`)).toEqual([
      { unique_keys: true },
    ]);
  });

  it("writes one CSV per day and type whose numbers are the reports' for that day", async () => {
    const scope = await reportScope({ accountId: shop.publisher.id, accountKind: "publisher" });
    const daily = runs.filter((r) => r.type === "campaigns");
    // From the day before the destination was made, each day whose next 03:00 UTC has passed.
    const due: string[] = [];
    for (let day = Date.parse(`${dayOf(T0 - 3 * DAY_MS)}T00:00:00Z`); day + DAY_MS + 3 * 3_600_000 <= later().getTime(); day += DAY_MS) due.push(dayOf(day));
    expect(due.slice(0, 4)).toEqual([dayOf(T0 - 3 * DAY_MS), dayOf(T0 - 2 * DAY_MS), dayOf(T0 - DAY_MS), dayOf(T0)]);
    expect(daily.map((r) => r.rangeStart.slice(0, 10))).toEqual(due);
    const sql = await duckdb();
    const totals = { impressions: 0, clicks: 0, conversions: 0, sales: 0 };
    for (const run of daily) {
      const day = run.rangeStart.slice(0, 10);
      const stored = await db.exportRun.findUniqueOrThrow({ where: { id: run.runId } });
      expect(stored.keys).toHaveLength(1);
      expect(stored.keys[0]).toMatch(/^tally\/exports\/campaigns\/\d{4}\/\d{2}\/\d{2}\/\d{19}\/[0-9a-f]{24}\.csv$/);
      const [file] = await download("publisher-data", stored.keys);
      const csv = await sql(`SELECT * FROM read_csv('${file}', header = true, all_varchar = true)`);
      const report = [];
      for await (const page of allReportRows(
        campaignListingStatement(scope, { startDate: day, endDate: day, page: 1, perPage: 1000, orderBy: "name", order: "asc", download: true, ids: {} }),
      )) {
        report.push(...page);
      }
      const text = (value: string | number | null) => (value === null ? null : String(value));
      expect(csv).toEqual(
        report.map((r) => ({
          day,
          name: r.name,
          campaign_id: r.campaign_id,
          campaign_type: r.campaign_type,
          campaign_status: r.campaign_status,
          impressions_total: text(r.impressions_total),
          clicks_total: text(r.clicks_total),
          ctr: text(r.ctr),
          ad_revenue: text(r.ad_revenue),
          conversions_total: text(r.conversions_total),
          conversion_rate: text(r.conversion_rate),
          sales_revenue: text(r.sales_revenue),
          start_date: r.start_date,
          end_date: r.end_date,
          advertiser_id: r.advertiser_id,
        })),
      );
      const row = csv.find((r) => r.campaign_id === shop.campaign.id);
      totals.impressions += Number(row?.impressions_total ?? 0);
      totals.clicks += Number(row?.clicks_total ?? 0);
      totals.conversions += Number(row?.conversions_total ?? 0);
      totals.sales += Number(row?.sales_revenue ?? 0);
    }
    // Over the days: 5 counted impressions, 2 clicks, one order with 51.00 of credited sales.
    expect(totals).toEqual({ impressions: 5, clicks: 2, conversions: 1, sales: 51 });
  });

  it("shows an advertiser's destination only the advertiser's rows", async () => {
    const other = await shopWithTraffic();
    const brand = await destinationFor(shop.advertiser.id, "brand-data", ["ad_events", "order_items"]);
    const result = await runDueExports({ now: later, destinationId: brand.id });
    expect(result.runs.every((r) => r.status === "succeeded")).toBe(true);
    const files = await download(
      "brand-data",
      (await listKeys("brand-data", "tally/exports/ad_events/")).filter((k) => k.endsWith(".parquet")),
    );
    const sql = await duckdb();
    expect(await sql(`SELECT DISTINCT campaign_id FROM read_parquet(${fileList(files)})`)).toEqual([{ campaign_id: shop.campaign.id }]);
    expect(other.campaign.id).not.toBe(shop.campaign.id);
  });
});

describe("a batch interrupted by the storage going away", () => {
  it("is recorded as failed, leaves the watermark, and is delivered whole by the next run", async () => {
    const shop = await shopWithTraffic();
    const destination = await destinationFor(shop.publisher.id, "faulty", ["ad_events"]);
    let files = 0;
    let stopped = false;
    try {
      const first = await runDueExports({
        now: () => new Date(T0 + 2 * DAY_MS),
        destinationId: destination.id,
        rowsPerFile: 1,
        // The storage stops after the first file written.
        onFile: async () => {
          files += 1;
          if (files === 1) {
            stopped = true;
            await s3.stop();
          }
        },
      });
      // Depending on the hour this runs, a batch before the traffic may be empty and delivered
      // first; the failure is the last run of the call.
      const failedRun = first.runs.at(-1)!;
      expect(first.runs.filter((r) => r.status === "failed")).toEqual([failedRun]);
      expect(failedRun).toMatchObject({ status: "failed", error: expect.stringContaining("cannot be reached") });
      const failed = await db.exportRun.findUniqueOrThrow({ where: { id: failedRun.runId } });
      // A connection error is not a row's fault: nothing is set aside, the run fails and is retried.
      expect(failed).toMatchObject({ status: "failed", attempt: 1, setAsideRows: 0 });
      expect(failed.nextAttemptAt).not.toBeNull();
      // The watermark stands where the failed batch starts (or nowhere, if it was the first).
      const watermark = await db.exportWatermark.findUnique({ where: { destinationId_type: { destinationId: destination.id, type: "ad_events" } } });
      expect(watermark?.deliveredTo.toISOString() ?? null).toBe(first.runs.length > 1 ? failedRun.rangeStart : null);
    } finally {
      if (stopped) s3 = await startLocalS3({ directory: s3.directory, port: s3.port });
    }
    const failed = await db.exportRun.findFirstOrThrow({ where: { destinationId: destination.id, status: "failed" } });
    // Before the back-off ends nothing is retried; after it, the same run with the same keys.
    expect((await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS), destinationId: destination.id })).runs).toEqual([]);
    const second = await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS + 10 * 60_000), destinationId: destination.id, rowsPerFile: 1 });
    expect(second.runs[0]).toMatchObject({ runId: failed.id, status: "succeeded", attempt: 2 });
    expect(second.runs.every((r) => r.status === "succeeded")).toBe(true);

    const all = await db.exportRun.findMany({ where: { destinationId: destination.id }, orderBy: { rangeStart: "asc" } });
    const keys = await listKeys("faulty", "tally/exports/ad_events/");
    expect(keys.filter((k) => k.endsWith(".parquet"))).toEqual(all.flatMap((r) => r.keys).sort());
    const downloaded = await download(
      "faulty",
      keys.filter((k) => k.endsWith(".parquet")),
    );
    const sql = await duckdb();
    const counted = await db.adEvent.count({ where: { publisherId: shop.publisher.id, status: "counted" } });
    expect(await sql(`SELECT count(*)::int AS rows, count(DISTINCT event_id)::int AS ids FROM read_parquet(${fileList(downloaded)})`)).toEqual([
      { rows: counted, ids: counted },
    ]);
    const watermark = await db.exportWatermark.findUniqueOrThrow({ where: { destinationId_type: { destinationId: destination.id, type: "ad_events" } } });
    expect(watermark.deliveredTo.getTime()).toBe(all.at(-1)!.rangeEnd.getTime());
  });

  it("loses and repeats nothing when the worker is killed half-way through a batch", async () => {
    const shop = await shopWithTraffic();
    const destination = await destinationFor(shop.publisher.id, "faulty", ["ad_events"]);
    const now = T0 + 2 * DAY_MS;
    // Asynchronously: the local S3 answering the child runs in this process.
    const child = spawn(process.execPath, ["--import", "tsx", "src/server/export/testing/export-until-killed.ts", destination.id, String(now)], {
      env: process.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, s) => resolve(s)));
    expect({ signal, stderr: stderr.slice(-2000) }).toMatchObject({ signal: "SIGKILL" });
    // The run stays as it was left: running, one file uploaded, the watermark not past it. (An
    // empty batch before the traffic may have been delivered first, depending on the hour.)
    const left = await db.exportRun.findFirstOrThrow({ where: { destinationId: destination.id, status: "running" } });
    expect(left).toMatchObject({ status: "running", attempt: 1 });
    const watermark = await db.exportWatermark.findUnique({ where: { destinationId_type: { destinationId: destination.id, type: "ad_events" } } });
    expect(watermark === null || watermark.deliveredTo.getTime() === left.rangeStart.getTime()).toBe(true);
    const uploaded = (await listKeys("faulty")).filter((k) => left!.keys.includes(k));
    expect(uploaded).toHaveLength(1);

    // The next call takes the abandoned run over (the killed worker's lock went with its connection).
    const resumed = await runDueExports({ now: () => new Date(now), destinationId: destination.id, rowsPerFile: 1 });
    expect(resumed.runs[0]).toMatchObject({ runId: left!.id, status: "succeeded", attempt: 2 });
    const runs = await db.exportRun.findMany({ where: { destinationId: destination.id } });
    const keys = runs.flatMap((r) => r.keys);
    const files = await download("faulty", keys);
    const sql = await duckdb();
    const counted = await db.adEvent.count({ where: { publisherId: shop.publisher.id, status: "counted" } });
    expect(await sql(`SELECT count(*)::int AS rows, count(DISTINCT event_id)::int AS ids FROM read_parquet(${fileList(files)})`)).toEqual([
      { rows: counted, ids: counted },
    ]);
  });

  it("marks a destination whose bucket does not exist as needing attention, and does not retry it", async () => {
    const publisher = await makePublisher();
    const destination = await destinationFor(publisher.id, "no-such-bucket", ["advertisers"]);
    const result = await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS), destinationId: destination.id });
    expect(result.runs).toHaveLength(1);
    expect(result.runs[0]!.error).toBe(`bucket no-such-bucket does not exist at ${s3.endpoint}`);
    expect(await getDestination(destination.id)).toMatchObject({
      status: "needs_attention",
      statusReason: `bucket no-such-bucket does not exist at ${s3.endpoint}`,
    });
    expect((await runDueExports({ now: () => new Date(T0 + 3 * DAY_MS), destinationId: destination.id })).runs).toEqual([]);
    // Refused credentials are not retried on a timer either.
    const refused = await destinationFor(publisher.id, "publisher-data", ["advertisers"]);
    await updateDestination(refused.id, {
      ...(await editable(refused.id)),
      credentials: { kind: "access_key", accessKeyId: "AKIDWRONG", secretAccessKey: "wrong-secret" },
    });
    const denied = await runDueExports({ now: () => new Date(T0 + 2 * DAY_MS), destinationId: refused.id });
    expect(denied.runs.map((r) => r.error)).toEqual(["access denied: the credentials may not write to bucket publisher-data (InvalidAccessKeyId)"]);
    expect(await getDestination(refused.id)).toMatchObject({ status: "needs_attention" });
    expect(
      JSON.stringify(await db.exportRun.findMany({ where: { destinationId: refused.id } }), (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
    ).not.toContain("wrong-secret");
    // Fixing the destination makes it active again.
    const fixed = await updateDestination(destination.id, { ...(await editable(destination.id)), bucket: "publisher-data" });
    expect(fixed.status).toBe("active");
  });
});

/** A destination's view as the update input, secret masked, as a form would send it back (a role without its external id, which is Tally's). */
async function editable(id: string) {
  const view = (await getDestination(id))!;
  const credentials = view.credentials.kind === "assume_role" ? { kind: "assume_role" as const, roleArn: view.credentials.roleArn } : view.credentials;
  return {
    accountId: view.accountId,
    name: view.name,
    bucket: view.bucket,
    region: view.region,
    endpoint: view.endpoint,
    forcePathStyle: view.forcePathStyle,
    prefix: view.prefix,
    credentials,
    writeSuccessMarker: view.writeSuccessMarker,
    types: view.types,
  };
}

describe("destinations", () => {
  it("never show the stored secret, keep it when the mask comes back, and test the connection in plain words", async () => {
    const publisher = await makePublisher();
    const created = await createDestination({
      accountId: publisher.id,
      name: "Lake",
      bucket: "publisher-data",
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { kind: "access_key", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY" },
    });
    expect(created.credentials).toEqual({ kind: "access_key", accessKeyId: "AKIDEXAMPLE", secretAccessKey: SECRET_MASK });
    expect(JSON.stringify(await listDestinations(publisher.id))).not.toContain("SECRETKEY");
    const row = await db.exportDestination.findUniqueOrThrow({ where: { id: created.id } });
    expect(Buffer.from(row.secretCiphertext!).toString("latin1")).not.toContain("SECRETKEY");

    await updateDestination(created.id, { ...(await editable(created.id)), name: "Lake 2" });
    expect((await destinationWithSecret(created.id))!.secretAccessKey).toBe("wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY");
    await updateDestination(created.id, {
      ...(await editable(created.id)),
      credentials: { kind: "access_key", accessKeyId: "AKID2", secretAccessKey: "new-secret-value" },
    });
    expect((await destinationWithSecret(created.id))!.secretAccessKey).toBe("new-secret-value");

    // The local S3 knows one key pair only: any other is refused, as a customer's bucket policy would.
    expect(await testConnection((await destinationWithSecret(created.id))!)).toEqual({
      ok: false,
      error: "access denied: the credentials may not write to bucket publisher-data (InvalidAccessKeyId)",
    });
    await updateDestination(created.id, { ...(await editable(created.id)), credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS } });
    expect(await testConnection((await destinationWithSecret(created.id))!)).toEqual({ ok: true, key: expect.stringMatching(/^_tally_connection_test\//) });
    expect(await listKeys("publisher-data", "_tally_connection_test/")).toEqual([]);
    const missing = { ...(await destinationWithSecret(created.id))!, bucket: "not-there" };
    expect(await testConnection(missing)).toEqual({ ok: false, error: `bucket not-there does not exist at ${s3.endpoint}` });
    const closed = { ...(await destinationWithSecret(created.id))!, endpoint: "http://127.0.0.1:9" };
    expect(await testConnection(closed)).toEqual({ ok: false, error: "the endpoint http://127.0.0.1:9 cannot be reached (ECONNREFUSED)" });
  });

  it("refuse malformed settings with the field named", async () => {
    const publisher = await makePublisher();
    await expect(
      createDestination({
        accountId: publisher.id,
        name: "x",
        bucket: "Bad_Bucket",
        region: "us-east-1",
        credentials: { kind: "assume_role", roleArn: "arn:aws:iam::123456789012:role/tally" },
      }),
    ).rejects.toThrow("bucket must be an S3 bucket name");
    await expect(
      createDestination({
        accountId: publisher.id,
        name: "x",
        bucket: "good-bucket",
        region: "us-east-1",
        credentials: { kind: "assume_role", roleArn: "arn:aws:iam::123456789012:role" },
      }),
    ).rejects.toThrow("credentials.roleArn must be an IAM role ARN");
  });

  it("generate a role's external id, never take one from the tenant, and keep it across updates", async () => {
    const publisher = await makePublisher();
    const roleArn = "arn:aws:iam::123456789012:role/tally";
    const input = { accountId: publisher.id, name: "Role", bucket: "good-bucket", region: "eu-west-1", credentials: { kind: "assume_role", roleArn } };
    // A tenant-chosen id (perhaps another tenant's) is refused, on create and on update.
    await expect(
      createDestination({ ...input, credentials: { kind: "assume_role", roleArn, externalId: "tally-0123456789abcdef0123456789abcdef" } }),
    ).rejects.toThrow("credentials.externalId is generated by Tally and cannot be set");
    const role = await createDestination(input);
    expect(role.credentials).toEqual({ kind: "assume_role", roleArn, externalId: expect.stringMatching(/^tally-[0-9a-f]{32}$/) });
    const externalId = (role.credentials as { externalId: string }).externalId;
    const other = await createDestination(input);
    expect((other.credentials as { externalId: string }).externalId).not.toBe(externalId);
    expect((await db.exportDestination.findUniqueOrThrow({ where: { id: role.id } })).externalId).toBe(externalId);
    await expect(
      updateDestination(role.id, { ...(await editable(role.id)), credentials: { kind: "assume_role", roleArn, externalId: "mine" } }),
    ).rejects.toThrow("credentials.externalId is generated by Tally");
    // Changing the role keeps the id the customer's trust policy already names.
    const updated = await updateDestination(role.id, {
      ...(await editable(role.id)),
      credentials: { kind: "assume_role", roleArn: "arn:aws:iam::123456789012:role/other" },
    });
    expect(updated.credentials).toEqual({ kind: "assume_role", roleArn: "arn:aws:iam::123456789012:role/other", externalId });
    // A destination that becomes a role gets a new one; a key destination has none.
    const keyed = await updateDestination(role.id, {
      ...(await editable(role.id)),
      credentials: { kind: "access_key", accessKeyId: "AKID", secretAccessKey: "secret-value" },
    });
    expect(keyed.credentials).toEqual({ kind: "access_key", accessKeyId: "AKID", secretAccessKey: SECRET_MASK });
    const again = await updateDestination(role.id, { ...(await editable(role.id)), credentials: { kind: "assume_role", roleArn } });
    expect((again.credentials as { externalId: string }).externalId).toMatch(/^tally-[0-9a-f]{32}$/);
    expect((again.credentials as { externalId: string }).externalId).not.toBe(externalId);
  });
});
