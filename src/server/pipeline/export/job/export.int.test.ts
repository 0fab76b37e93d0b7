// The export end to end: every type of a publisher's destination delivered to a real S3 API
// (s3rver) and read back with DuckDB (codec, columns, types, rows against the database, a day's
// CSV against the report routes), and an advertiser's destination limited to its own rows.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { reportScope } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { AGGREGATE_COLUMNS, aggregateColumns } from "@/server/store/export-rows";
import { duckdb, fileList, localBucketsForTests, twoDayOldDestination } from "@/testing/export-bucket";
import { shopWithTraffic as shopAround } from "@/testing/export-traffic";
import { type ExportRunSummary, runDueExports } from "./run-exports";

const DAY_MS = 86_400_000;
const T0 = Date.now();
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isParquet = (key: string) => key.endsWith(".parquet");
const bucket = localBucketsForTests(["publisher-data", "brand-data", "extended-data"]);
const { listKeys, download } = bucket;
const shopWithTraffic = () => shopAround(T0);
const destinationFor = (accountId: string, name: string, types?: string[]) =>
  twoDayOldDestination({ accountId, bucket: name, endpoint: bucket.s3.endpoint, prefix: "tally/exports", types, t0: T0 });

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
      const query = {
        startDate: day,
        endDate: day,
        zone: "UTC",
        page: 1,
        perPage: 1000,
        orderBy: "name" as const,
        order: "asc" as const,
        download: true,
        ids: {},
      };
      const report = (await store().reports.campaigns(scope, query).page(query)).data;
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
    // Another shop's traffic over the same days: another publisher, advertiser and campaign.
    const other = await shopWithTraffic();
    const brand = await destinationFor(shop.advertiser.id, "brand-data", ["ad_events", "order_items"]);
    const result = await runDueExports({ now: later, destinationId: brand.id });
    expect(result.runs.every((r) => r.status === "succeeded")).toBe(true);
    const sql = await duckdb();
    const parquetIn = async (type: string) =>
      fileList(await download("brand-data", (await listKeys("brand-data", `tally/exports/${type}/`)).filter(isParquet)));
    // Every counted event of the advertiser's ads, each once, and none of the other advertiser's 7.
    const own = await db.adEvent.findMany({ where: { advertiserId: shop.advertiser.id, status: "counted" }, select: { eventId: true } });
    expect(own).toHaveLength(7);
    expect(await db.adEvent.count({ where: { advertiserId: other.advertiser.id, status: "counted" } })).toBe(7);
    const events = await sql(`SELECT event_id, campaign_id FROM read_parquet(${await parquetIn("ad_events")}) ORDER BY event_id`);
    expect(events).toEqual(own.map((e) => ({ event_id: e.eventId, campaign_id: shop.campaign.id })).sort((a, b) => (a.event_id < b.event_id ? -1 : 1)));
    // The one line credited to its ad; the other shop's credited line is not there.
    const items = await sql(`SELECT ad_id, total_value FROM read_parquet(${await parquetIn("order_items")})`);
    expect(items).toEqual([{ ad_id: shop.ad.id, total_value: 51 }]);
  });

  it("writes a destination's CSV in the extended layout: the interface's columns unchanged, then every other report metric", async () => {
    const extended = await twoDayOldDestination({
      accountId: shop.advertiser.id,
      bucket: "extended-data",
      endpoint: bucket.s3.endpoint,
      prefix: "tally/exports",
      types: ["campaigns", "ads"],
      t0: T0,
      aggregateLayout: "extended",
    });
    expect((await runDueExports({ now: later, destinationId: extended.id })).runs.every((r) => r.status === "succeeded")).toBe(true);
    const sql = await duckdb();
    const scope = await reportScope({ accountId: shop.advertiser.id, accountKind: "advertiser" });
    let withOrder = 0;
    for (const key of (await listKeys("extended-data", "tally/exports/campaigns/")).filter((k) => k.endsWith(".csv"))) {
      const [file] = await download("extended-data", [key]);
      const header = await sql(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_csv('${file}', header = true, all_varchar = true))`);
      const columns = header.map((c) => c.column_name);
      expect(columns).toEqual(aggregateColumns("campaigns", "extended"));
      expect(columns.slice(0, AGGREGATE_COLUMNS.campaigns.length)).toEqual(AGGREGATE_COLUMNS.campaigns);
      expect(columns).toEqual(expect.arrayContaining(["conversions_click", "sales_revenue_view", "units_sold", "click_conversion_rate", "ecpm", "acos"]));
      const rows = await sql(`SELECT * FROM read_csv('${file}', header = true, all_varchar = true)`);
      const day = String(rows[0]?.day ?? "");
      if (rows.length === 0) continue;
      const query = {
        startDate: day,
        endDate: day,
        zone: "UTC",
        page: 1,
        perPage: 1000,
        orderBy: "name" as const,
        order: "asc" as const,
        download: true,
        ids: {},
      };
      const report = (await store().reports.campaigns(scope, query).page(query)).data;
      // Every cell is the report's, a null (a rate over nothing) an empty cell.
      expect(rows).toEqual(
        report.map((r) =>
          Object.fromEntries(columns.map((c) => [c, c === "day" ? day : r[c as keyof typeof r] === null ? null : String(r[c as keyof typeof r])])),
        ),
      );
      if (rows.some((r) => r.conversions_total === "1")) {
        withOrder += 1;
        // The fixture's order: one line of 51.00 credited to a click.
        expect(rows.find((r) => r.conversions_total === "1")).toMatchObject({ conversions_click: "1", conversions_view: "0", sales_revenue_click: "51" });
      }
    }
    expect(withOrder).toBe(1);
  });
});
