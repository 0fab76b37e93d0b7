// The hours report of the ClickHouse store against the Postgres store's over the same traffic
// (report-parity-traffic.ts): settled, attributed and shipped in ClickHouse mode, then Postgres's
// report tables recounted from the same raw rows, both keeping UTC, São Paulo (−3), Kathmandu
// (+5:45) and Lord Howe (+11 in November) from 1 October. Every cell of every caller, filter and
// range must be equal in each zone; the cells add up to the days' figures; and GET /report/hours,
// its XLSX download and a report job answer ClickHouse's cells through the shared route code.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { canonicalZone } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { runReportJobs } from "@/server/pipeline/report/jobs/run-report-jobs";
import { HOURS_WORKBOOK } from "@/server/pipeline/report/report-definitions";
import { reportScope, STAFF_CALLER, scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import type { HourRow } from "@/server/store/hours-report";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { handleCreateReportJob, handleGetReportJob, handleHours } from "@/testing/api/checked-report-routes";
import { keepClickhouseZone } from "@/testing/clickhouse-report-zones";
import { csvRows, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { seedParityTraffic } from "@/testing/report-parity-traffic";
import { reportSheet } from "@/testing/report-sheet";
import { clickhouseStore } from "./clickhouse-store";

const jobsBucket = await reportJobBucketForTests();
const HOURS_FROM = "2026-10-01T00:00:00.000Z";
const ZONES = ["UTC", canonicalZone("America/Sao_Paulo")!, canonicalZone("Asia/Kathmandu")!, canonicalZone("Australia/Lord_Howe")!];
// The traffic's UTC days are 9-11 Nov; in Lord Howe and Kathmandu its evenings are 12 Nov.
const WIDE = { startDate: "2026-11-08", endDate: "2026-11-12" };
const ONE_DAY = { startDate: "2026-11-10", endDate: "2026-11-10" };
const MANY_READS_MS = 300_000;

let traffic: Awaited<ReturnType<typeof seedParityTraffic>>;
let scopes: [string, ReportScope][];

beforeAll(async () => {
  expect(store().name).toBe("clickhouse");
  await pgPool().query("UPDATE report_zones SET hours_since = $1 WHERE zone = 'UTC'", [HOURS_FROM]);
  for (const zone of ZONES.slice(1)) await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [zone, HOURS_FROM]);
  await keepClickhouseZone("UTC", HOURS_FROM, "1970-01-01T00:00:00.000Z");
  for (const zone of ZONES.slice(1)) await keepClickhouseZone(zone, HOURS_FROM);
  traffic = await seedParityTraffic();
  for (;;) {
    const shipped = await store().shipping!.ship();
    expect(shipped.error).toBeNull();
    if (shipped.batches === 0) break;
  }
  expect((await store().shipping!.state()).waiting).toBe(0);
  // In ClickHouse mode Postgres keeps no report rows: recounted from its raw rows, in every kept zone.
  await postgresStore.rollups.rebuild(WIDE.startDate, WIDE.endDate);
  expect(await postgresStore.rollups.verify(WIDE.startDate, WIDE.endDate)).toEqual([]);
  scopes = [
    ["staff", await reportScope(STAFF_CALLER)],
    ["acme", await scopeOfAccount(traffic.acme.id)],
    ["bolt", await scopeOfAccount(traffic.bolt.id)],
    ["idle", await scopeOfAccount(traffic.idle.id)],
    ["shop one", await scopeOfAccount(traffic.shopOne.id)],
    ["strict shop", await scopeOfAccount(traffic.strictShop.id)],
    ["sub-publisher", await scopeOfAccount(traffic.subOne.id)],
    ["network", await scopeOfAccount(traffic.network.id)],
  ];
}, 300_000);

const queryOf = (zone: string, range: { startDate: string; endDate: string }, ids: ReportQuery<string>["ids"] = {}): ReportQuery<string> => ({
  ...range,
  zone,
  page: 1,
  perPage: 168,
  orderBy: "weekday",
  order: "asc",
  download: false,
  ids,
});
const busy = (rows: readonly HourRow[]) => rows.filter((row) => row.impressions_total + row.clicks_total + row.conversions_total > 0);
const total = (rows: readonly HourRow[], figure: keyof HourRow) => rows.reduce((sum, row) => sum + Number(row[figure]), 0);

describe("the ClickHouse store's hours report", { timeout: MANY_READS_MS }, () => {
  it("answers every cell as the Postgres store does, in every zone, for every caller, filter and range", async () => {
    const filters: [string, ReportQuery<string>["ids"]][] = [
      ["everything", {}],
      ["acme's direct campaign", { campaign_id: traffic.campaigns.acmeDirect }],
      ["bolt's campaigns", { advertiser_id: traffic.bolt.id }],
      ["shop one", { publisher_id: traffic.shopOne.id }],
      ["the network's first sub-publisher", { publisher_id: traffic.subOne.id }],
    ];
    const busyCells: Record<string, string[]> = {};
    for (const zone of ZONES) {
      for (const [name, scope] of scopes) {
        for (const range of [WIDE, ONE_DAY]) {
          for (const [filter, ids] of filters) {
            const query = queryOf(zone, range, ids);
            const expected = await postgresStore.reports.hours(scope, query);
            expect(await clickhouseStore.reports.hours(scope, query), `${zone}, ${name}, ${range.startDate}..${range.endDate}, ${filter}`).toEqual(expected);
          }
        }
      }
      const staff = await clickhouseStore.reports.hours(scopes[0]![1], queryOf(zone, WIDE));
      expect(staff.hoursSince.toISOString()).toBe(HOURS_FROM);
      expect(total(staff.rows, "conversions_total")).toBeGreaterThan(5);
      busyCells[zone] = busy(staff.rows).map((row) => `${row.weekday} ${row.hour}`);
    }
    // Each zone puts the traffic in hours of its own, so equal cells were not equally empty.
    expect(new Set(Object.values(busyCells).map((cells) => cells.join())).size).toBe(ZONES.length);
    expect(busyCells.UTC).toContain("2 8");
  });

  it("has cells that add up to the days' figures of the zone, distinct orders included", async () => {
    const figures = ["impressions_total", "clicks_total", "ad_revenue", "conversions_total", "sales_revenue", "converted_clicks", "ntb_conversions"] as const;
    for (const zone of ZONES) {
      for (const [name, scope] of scopes) {
        const cells = (await clickhouseStore.reports.hours(scope, queryOf(zone, WIDE))).rows;
        // The days of the zone as Postgres keeps them (ClickHouse's are UTC days only): the other store's figures.
        const days = (await postgresStore.reports.metricsOverRange(scope, { ...WIDE, zone })).total;
        for (const figure of figures) expect(total(cells, figure), `${zone}, ${name}, ${figure}`).toBeCloseTo(Number(days[figure]), 6);
      }
    }
    const utcDays = (await clickhouseStore.reports.metricsOverRange(scopes[0]![1], { ...WIDE, zone: "UTC" })).total;
    const utcCells = (await clickhouseStore.reports.hours(scopes[0]![1], queryOf("UTC", WIDE))).rows;
    expect(total(utcCells, "conversions_total")).toBe(utcDays.conversions_total);
    expect(total(utcCells, "impressions_total")).toBe(utcDays.impressions_total);
  });

  it("serves GET /report/hours, its XLSX download and a report job from ClickHouse's cells", async () => {
    const key = (await createApiKey({ actor: OPERATOR, accountId: traffic.acme.id, name: "hours" })).key;
    const auth = { Authorization: `Bearer ${key}` };
    const range = `start_date=${WIDE.startDate}&end_date=${WIDE.endDate}`;
    const answer = await handleHours(new Request(`http://tally.test/report/hours?${range}`, { headers: auth }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("tally-hours-since")).toBe(HOURS_FROM);
    const body = (await answer.json()) as { data: HourRow[]; time_zone: string; hours_since: string };
    const acme = scopes.find(([name]) => name === "acme")![1];
    expect(body).toEqual({ data: (await postgresStore.reports.hours(acme, queryOf("UTC", WIDE))).rows, time_zone: "UTC", hours_since: HOURS_FROM });
    expect(busy(body.data).length).toBeGreaterThan(3);

    const download = await handleHours(new Request(`http://tally.test/report/hours?${range}&download=true`, { headers: auth }));
    expect(download.status).toBe(200);
    const sheet = await reportSheet(Buffer.from(await download.arrayBuffer()), HOURS_WORKBOOK.columns);
    expect(sheet.rows.map((row) => [row.impressions_total, row.conversions_total])).toEqual(
      body.data.map((row) => [row.impressions_total, row.conversions_total]),
    );
    expect(sheet.totals).toMatchObject({
      weekday: `Total (hours in UTC, counted from ${HOURS_FROM})`,
      impressions_total: total(body.data, "impressions_total"),
    });

    const created = await handleCreateReportJob(
      new Request("http://tally.test/report/jobs", {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ report: "hours", start_date: WIDE.startDate, end_date: WIDE.endDate, format: "csv" }),
      }),
    );
    expect(created.status).toBe(202);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    expect((await runReportJobs({ settings: { partBytes: 5 * 1024 * 1024 } })).find((outcome) => outcome.id === id)?.status).toBe("done");
    const job = (
      (await (await handleGetReportJob(new Request(`http://tally.test/report/jobs/${id}`, { headers: auth }))).json()) as { data: { download_url: string } }
    ).data;
    const csv = await csvRows((await jobsBucket.fetchFile(job.download_url)).file);
    expect(csv.map((row) => [Number(row.impressions_total), Number(row.conversions_total)])).toEqual(
      body.data.map((row) => [row.impressions_total, row.conversions_total]),
    );
  });
});
