// GET /report/hours (dayparting) in UTC over seedAcme's data (report-fixture.ts), whose events fall
// on Tuesday 10 Nov 2026 between 12:00 and 12:10 UTC and whose order at 12:30. Another zone's
// hours: hours-report-zones.int.test.ts.
import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { type HourRow, WEEKDAYS } from "@/server/store/hours-report";
import { handleCampaignListing, handleCreateReportJob, handleGetReportJob, handleHours } from "@/testing/api/checked-report-routes";
import { get, RANGE, seedAcme } from "@/testing/report-fixture";
import { inJsonTerms, jsonLinesRows, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { reportSheet } from "@/testing/report-sheet";
import { runReportJobs } from "./jobs/run-report-jobs";
import { HOURS_WORKBOOK } from "./report-definitions";

const jobsBucket = await reportJobBucketForTests();
const HOURS_SINCE = "2026-10-01T00:00:00.000Z";
const TUESDAY = 2;
let acme: Awaited<ReturnType<typeof seedAcme>>;

beforeAll(async () => {
  // UTC's hours kept since 1 Oct, before any of the fixture's events.
  await pgPool().query(sql`UPDATE report_zones SET hours_since = ${HOURS_SINCE}::timestamptz WHERE zone = 'UTC'`);
  acme = await seedAcme();
});

type Answer = { data: HourRow[]; time_zone: string; hours_since: string };
const hours = async (key: string, query: string) => {
  const response = await handleHours(new Request(`http://tally.test/report/hours?${query}`, { headers: { Authorization: `Bearer ${key}` } }));
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer };
};
const cellOf = (rows: readonly HourRow[], weekday: number, hour: number) => rows[weekday * 24 + hour]!;
const sumOf = (rows: readonly Record<string, unknown>[], field: string) => rows.reduce((n, row) => n + (row[field] as number), 0);
const busy = (rows: readonly HourRow[]) => rows.filter((row) => row.impressions_total + row.clicks_total + row.conversions_total > 0);

describe("GET /report/hours", () => {
  it("answers all 168 cells weekday then hour, each event in the UTC hour it happened, and says from when hours count", async () => {
    const { status, headers, body } = await hours(acme.advertiserKey, RANGE);
    expect(status).toBe(200);
    expect(headers.get("tally-hours-since")).toBe(HOURS_SINCE);
    expect(body.time_zone).toBe("UTC");
    expect(body.hours_since).toBe(HOURS_SINCE);
    expect(body.data.map((row) => [row.weekday, row.hour])).toEqual(WEEKDAYS.flatMap((_, weekday) => Array.from({ length: 24 }, (_, hour) => [weekday, hour])));
    // Acme's 7 impressions and 2 clicks at 12:00-12:10 and its order at 12:30, all on a Tuesday at noon.
    expect(busy(body.data)).toEqual([
      expect.objectContaining({ weekday: TUESDAY, hour: 12, impressions_total: 7, clicks_total: 2, ad_revenue: 1.02, conversions_total: 1, sales_revenue: 23 }),
    ]);
    expect(cellOf(body.data, TUESDAY, 13)).toMatchObject({ impressions_total: 0, ctr: 0, roas: 0, cpa: null });
  });

  it("sums, over its 168 cells, to the campaigns report over the same range", async () => {
    const cells = (await hours(acme.advertiserKey, RANGE)).body.data;
    const campaigns = (await get(acme.advertiserKey, RANGE, handleCampaignListing)).body.data;
    for (const field of ["impressions_total", "clicks_total", "ad_revenue", "conversions_total", "sales_revenue", "units_sold", "converted_clicks"])
      expect([field, sumOf(cells, field)]).toEqual([field, sumOf(campaigns, field)]);
  });

  it("narrows to one campaign, its orders its own, and to one publisher", async () => {
    const cpm = (await hours(acme.advertiserKey, `${RANGE}&campaign_id=${acme.cpm.campaign.id}`)).body.data;
    expect(busy(cpm)).toEqual([expect.objectContaining({ weekday: TUESDAY, hour: 12, impressions_total: 2, clicks_total: 0, conversions_total: 0 })]);
    const cpc = (await hours(acme.advertiserKey, `${RANGE}&campaign_id=${acme.cpc.campaign.id}`)).body.data;
    expect(busy(cpc)).toEqual([expect.objectContaining({ weekday: TUESDAY, hour: 12, impressions_total: 5, clicks_total: 2, conversions_total: 1 })]);
    const shopB = (await hours(acme.advertiserKey, `${RANGE}&publisher_id=${acme.shopBId}`)).body.data;
    expect(busy(shopB)).toEqual([expect.objectContaining({ impressions_total: 1, clicks_total: 0, conversions_total: 0 })]);
  });

  it("reads a publisher's hours across advertisers, each order once", async () => {
    // Shop A: Acme's 6 impressions and 2 clicks, the other advertiser's impression, Acme's order.
    const shopA = (await hours(acme.shopAKey, RANGE)).body.data;
    expect(busy(shopA)).toEqual([
      expect.objectContaining({ weekday: TUESDAY, hour: 12, impressions_total: 7, clicks_total: 2, conversions_total: 1, sales_revenue: 23 }),
    ]);
    const acmeOnly = (await hours(acme.shopAKey, `${RANGE}&advertiser_id=${acme.acmeId}`)).body.data;
    expect(busy(acmeOnly)).toEqual([expect.objectContaining({ impressions_total: 6, clicks_total: 2, conversions_total: 1 })]);
  });

  it("shows an account only its own rows: another advertiser's campaign id is an empty week, as the listings answer", async () => {
    const others = await hours(acme.otherAdvertiserKey, `${RANGE}&campaign_id=${acme.cpc.campaign.id}`);
    expect(others.status).toBe(200);
    expect(others.body.data).toHaveLength(168);
    expect(busy(others.body.data)).toEqual([]);
    expect(busy((await hours(acme.otherAdvertiserKey, RANGE)).body.data)).toEqual([expect.objectContaining({ impressions_total: 1 })]);
    // Shop B sees its one impression of Acme's CPC campaign.
    expect(busy((await hours(acme.publisherKey, RANGE)).body.data)).toEqual([expect.objectContaining({ hour: 12, impressions_total: 1 })]);
    expect((await hours(acme.advertiserKey, "order_by=hour")).status).toBe(400);
    expect((await hours("tly_nope", RANGE)).status).toBe(401);
  });

  it("downloads the 168 cells as XLSX, its totals row naming the zone and from when hours count", async () => {
    const json = (await hours(acme.advertiserKey, RANGE)).body.data;
    const response = await handleHours(
      new Request(`http://tally.test/report/hours?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${acme.advertiserKey}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="hours_2026-11-01_2026-11-30.xlsx"');
    expect(response.headers.get("tally-hours-since")).toBe(HOURS_SINCE);
    const sheet = await reportSheet(Buffer.from(await response.arrayBuffer()), HOURS_WORKBOOK.columns);
    expect(sheet.rows).toHaveLength(168);
    expect(sheet.rows[TUESDAY * 24 + 12]).toMatchObject({ weekday: TUESDAY, hour: 12, impressions_total: 7, clicks_total: 2 });
    expect(sheet.rows.map((row) => row.impressions_total)).toEqual(json.map((row) => row.impressions_total));
    expect(sheet.totals).toMatchObject({ weekday: `Total (hours in UTC, counted from ${HOURS_SINCE})`, impressions_total: 7, conversions_total: 1 });
  });

  it("runs as a report job whose file holds the route's rows", async () => {
    const auth = { Authorization: `Bearer ${acme.advertiserKey}` };
    const created = await handleCreateReportJob(
      new Request("http://tally.test/report/jobs", {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({
          report: "hours",
          start_date: "2026-11-01",
          end_date: "2026-11-30",
          filters: { campaign_id: acme.cpc.campaign.id },
          format: "jsonl",
        }),
      }),
    );
    expect(created.status).toBe(202);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    expect((await runReportJobs({ settings: { partBytes: 5 * 1024 * 1024 } })).map((outcome) => outcome.status)).toEqual(["done"]);
    const job = (
      (await (await handleGetReportJob(new Request(`http://tally.test/report/jobs/${id}`, { headers: auth }))).json()) as { data: Record<string, unknown> }
    ).data;
    expect(job).toMatchObject({ status: "done", rows: 168 });
    const file = await jobsBucket.fetchFile(job.download_url as string);
    const route = (await hours(acme.advertiserKey, `${RANGE}&campaign_id=${acme.cpc.campaign.id}`)).body.data;
    expect(inJsonTerms(await jsonLinesRows(file.file))).toEqual(route);
  });
});
