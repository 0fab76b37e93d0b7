// One file over 300 lines on purpose: every report read of the two stores side by side over the same traffic, each with its scopes, ranges, sorts and pages.
// The ClickHouse store's reports against the Postgres store's over the same events: traffic of
// every kind (report-parity-traffic.ts) settled, attributed and shipped in ClickHouse mode, then
// Postgres's report tables recounted from the same raw rows. Every read, for every kind of
// caller, over several ranges, sorts, pages and downloads, must answer the same rows, in UTC and
// in five kept zones (events 1 ms before and at each local midnight among them), one of which
// starts after the traffic's first day: its earlier days are UTC days in both stores, and the
// routes name the same first day of the zone's own.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { pgPool } from "@/server/db/pg-pool";
import { handleAdsDetailed, handleCampaignListing, handlePublisherReport } from "@/server/http/report-routes";
import { UTC_DAYS_BEFORE_HEADER } from "@/server/http/report-time-zone-headers";
import { ADS_DETAILED } from "@/server/pipeline/report/report-definitions";
import { reportScope, STAFF_CALLER, scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import { forgetReadableZones } from "@/server/store/postgres/report-zone.sql";
import { parseReportQuery, type ReportQuery, type ReportScope, UTC_ONLY } from "@/server/store/report-query";
import {
  AD_RESULTS_ORDER_BY,
  ADVERTISER_REPORT_ORDER_BY,
  CAMPAIGN_LISTING_ORDER_BY,
  DETAILED_REPORT_ORDER_BY,
  PUBLISHER_REPORT_ORDER_BY,
  type ReportRows,
} from "@/server/store/report-rows";
import type { ReportReads } from "@/server/store/store";
import { PARITY_DAYS, seedParityTraffic } from "@/testing/report-parity-traffic";
import { reportSheet } from "@/testing/report-sheet";
import { clickhouseStore } from "./clickhouse-store";
import { selectRows } from "./client";

type Traffic = Awaited<ReturnType<typeof seedParityTraffic>>;

const KEPT_DAYS = { startDate: "2026-11-08", endDate: "2026-11-12" };

/** The zones kept besides UTC, and where Postgres's rows of each start (UTC midnights). */
const ZONE_STARTS: [string, Date][] = [
  ["America/Sao_Paulo", new Date("2026-11-01T00:00:00Z")],
  ["Asia/Kolkata", new Date("2026-11-01T00:00:00Z")],
  ["Asia/Kathmandu", new Date("2026-11-01T00:00:00Z")],
  ["Australia/Lord_Howe", new Date("2026-11-01T00:00:00Z")],
  ["America/New_York", new Date("2026-11-10T00:00:00Z")],
];
type DayRange = { startDate: string; endDate: string; zone: string };

let traffic: Traffic;
/** Every kind of caller: staff, each advertiser, a direct publisher, a sub-publisher, the network. */
let scopes: [string, ReportScope][];
let advertiserScopes: [string, ReportScope][];
let ranges: DayRange[];

const postgres = postgresStore.reports;
// Hundreds of reads of each store in one test, on a machine shared with other work.
const MANY_READS_MS = 300_000;
const clickhouse = clickhouseStore.reports;

beforeAll(async () => {
  expect(store().name).toBe("clickhouse");
  // Kept zones, as accounts' zones keep them: four from before the traffic, New York from its
  // second day on (the seam: its days before read as UTC days, in both stores).
  for (const [zone, since] of ZONE_STARTS) {
    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [zone, since]);
  }
  traffic = await seedParityTraffic({ localMidnights: true });
  for (;;) {
    const shipped = await store().shipping!.ship();
    expect(shipped.error).toBeNull();
    if (shipped.batches === 0) break;
  }
  expect((await store().shipping!.state()).waiting).toBe(0);
  // In ClickHouse mode Postgres keeps no report rows; recounted from its raw rows, they describe
  // the events ClickHouse was sent.
  const empty = await pgPool().query<{ n: number }>("SELECT (SELECT count(*) FROM daily_campaign_totals) + (SELECT count(*) FROM daily_ad_totals)::int AS n");
  expect(Number(empty.rows[0]!.n)).toBe(0);
  // The local days of every kept zone that hold traffic: a day either side of the UTC days.
  await postgresStore.rollups.rebuild(KEPT_DAYS.startDate, KEPT_DAYS.endDate);
  expect(await postgresStore.rollups.verify(KEPT_DAYS.startDate, KEPT_DAYS.endDate)).toEqual([]);
  // ClickHouse's rollups, kept by its views, as its own recount of the raw rows says.
  expect(await clickhouseStore.rollups.verify(KEPT_DAYS.startDate, KEPT_DAYS.endDate)).toEqual([]);

  advertiserScopes = [
    ["acme", await scopeOfAccount(traffic.acme.id)],
    ["bolt", await scopeOfAccount(traffic.bolt.id)],
    ["idle", await scopeOfAccount(traffic.idle.id)],
  ];
  scopes = [
    ["staff", await reportScope(STAFF_CALLER)],
    ...advertiserScopes,
    ["shop one", await scopeOfAccount(traffic.shopOne.id)],
    ["strict shop", await scopeOfAccount(traffic.strictShop.id)],
    ["sub-publisher", await scopeOfAccount(traffic.subOne.id)],
    ["network", await scopeOfAccount(traffic.network.id)],
  ];
  const [first, middle, last] = [traffic.range.startDate, "2026-11-10", traffic.range.endDate];
  ranges = [
    { startDate: first, endDate: last, zone: "UTC" },
    { startDate: middle, endDate: middle, zone: "UTC" },
    { startDate: "2026-11-01", endDate: middle, zone: "UTC" },
    { startDate: "2026-10-01", endDate: "2026-10-03", zone: "UTC" },
    { startDate: "2026-11-08", endDate: "2026-11-12", zone: "America/Sao_Paulo" },
    { startDate: first, endDate: last, zone: "Asia/Kolkata" },
    { startDate: middle, endDate: middle, zone: "Asia/Kathmandu" },
    { startDate: "2026-11-08", endDate: "2026-11-12", zone: "Australia/Lord_Howe" },
    { startDate: "2026-11-08", endDate: "2026-11-12", zone: "America/New_York" },
  ];
}, 300_000);

const queryOf = <OrderBy extends string>(range: DayRange, orderBy: OrderBy, more: Partial<ReportQuery<OrderBy>> = {}): ReportQuery<OrderBy> => ({
  ...range,
  page: 1,
  perPage: 1000,
  orderBy,
  order: "desc",
  download: false,
  ids: {},
  ...more,
});

async function everyRow<Row>(rows: ReportRows<Row>): Promise<Row[]> {
  const cursor = await rows.open({ batch: 4 });
  const all: Row[] = [];
  for await (const batch of cursor.batches) all.push(...batch);
  expect(await cursor.ended).toBe("done");
  return all;
}

/**
 * The same read of both stores, compared: the whole list in one page, pages of 3 up to one past
 * the end (unless `paged` is false), and every row through a download's read. Returns Postgres's rows.
 */
async function compare<Row>(
  label: string,
  read: (reports: ReportReads, query: { download: boolean }) => ReportRows<Row>,
  { paged = true }: { paged?: boolean } = {},
): Promise<Row[]> {
  const whole = await read(postgres, { download: false }).page({ page: 1, perPage: 1000 });
  expect(await read(clickhouse, { download: false }).page({ page: 1, perPage: 1000 }), label).toEqual(whole);
  const pages = paged ? Math.ceil(whole.total / 3) + 1 : 0;
  for (let page = 1; page <= pages; page++) {
    const expected = await read(postgres, { download: false }).page({ page, perPage: 3 });
    expect(await read(clickhouse, { download: false }).page({ page, perPage: 3 }), `${label}, page ${page} of 3`).toEqual(expected);
  }
  const downloaded = await everyRow(read(postgres, { download: true }));
  expect(await everyRow(read(clickhouse, { download: true })), `${label}, download`).toEqual(downloaded);
  return whole.data;
}

/** The callers every sort is tried for: staff, an advertiser and the network, one of each kind of scope. */
const EVERY_SORT_FOR = new Set(["staff", "acme", "network"]);

/**
 * Sorts to try: over the whole range every one, each way, for the callers above; otherwise the
 * default. A sort orders rows whose figures the default sort has already compared for every
 * caller, range and zone, so each sort is tried for one caller of each kind. Pages of 3 are
 * compared for the default sort, either way: a page is cut from the same sorted rows whatever
 * the sort (the whole list is compared for every one), and only the default sort of a detailed
 * report (by day) is cut in ClickHouse and reads the figures of a page's rows alone.
 */
const sorts = <OrderBy extends string>(orderBys: readonly [OrderBy, ...OrderBy[]], range: DayRange, caller: string) =>
  range === ranges[0] && EVERY_SORT_FOR.has(caller)
    ? orderBys.flatMap((orderBy) => (["desc", "asc"] as const).map((order) => ({ orderBy, order, paged: orderBy === orderBys[0] })))
    : range === ranges[0]
      ? (["desc", "asc"] as const).map((order) => ({ orderBy: orderBys[0], order, paged: true }))
      : [{ orderBy: orderBys[0], order: "desc" as const, paged: true }];

describe("the ClickHouse store's reports", { timeout: MANY_READS_MS }, () => {
  it("list advertisers as the Postgres store does, for every caller, range and sort", async () => {
    let figures = 0;
    for (const [name, scope] of scopes) {
      for (const range of ranges) {
        for (const { orderBy, order, paged } of sorts(ADVERTISER_REPORT_ORDER_BY, range, name)) {
          const rows = await compare(
            `advertisers for ${name} ${range.startDate}..${range.endDate} ${range.zone} by ${orderBy} ${order}`,
            (reports, { download }) => reports.advertisers(scope, queryOf(range, orderBy, { order, download })),
            { paged },
          );
          figures += rows.reduce((sum, row) => sum + row.impressions_total + row.conversions_total, 0);
        }
      }
      const filtered = queryOf(ranges[0]!, "advertiser" as const, { ids: { advertiser_id: traffic.bolt.id } });
      await compare(`advertisers for ${name}, bolt only`, (reports) => reports.advertisers(scope, filtered));
    }
    expect(figures).toBeGreaterThan(0);
  });

  it("list publishers, and a network's sub-publishers, as the Postgres store does", async () => {
    for (const [name, scope] of scopes) {
      for (const range of ranges) {
        for (const { orderBy, order, paged } of sorts(PUBLISHER_REPORT_ORDER_BY, range, name)) {
          await compare(
            `publishers for ${name} ${range.startDate}..${range.endDate} ${range.zone} by ${orderBy} ${order}`,
            (reports, { download }) => reports.publishers(scope, queryOf(range, orderBy, { order, download })),
            { paged },
          );
        }
      }
      const filtered = queryOf(ranges[0]!, "publisher" as const, { ids: { publisher_id: traffic.subOne.id } });
      await compare(`publishers for ${name}, sub-publisher only`, (reports) => reports.publishers(scope, filtered));
    }
    const network = scopes.find(([name]) => name === "network")![1];
    for (const range of ranges) {
      const rows = await compare(`the network's publishers ${range.startDate}..${range.endDate} ${range.zone}`, (reports, { download }) =>
        reports.publishers(network, queryOf(range, "conversions_total" as const, { download }), traffic.network.id),
      );
      if (range === ranges[0]) expect(rows.map((row) => row.publisher_id).sort()).toEqual([traffic.subOne.id, traffic.subTwo.id].sort());
    }
  });

  it("list campaigns and ads as the Postgres store does, with their id filters", async () => {
    for (const [name, scope] of scopes) {
      for (const range of ranges) {
        for (const { orderBy, order, paged } of sorts(CAMPAIGN_LISTING_ORDER_BY, range, name)) {
          await compare(
            `campaigns for ${name} ${range.startDate}..${range.endDate} ${range.zone} by ${orderBy} ${order}`,
            (reports, { download }) => reports.campaigns(scope, queryOf(range, orderBy, { order, download })),
            { paged },
          );
        }
        for (const { orderBy, order, paged } of sorts(AD_RESULTS_ORDER_BY, range, name)) {
          await compare(
            `ads for ${name} ${range.startDate}..${range.endDate} ${range.zone} by ${orderBy} ${order}`,
            (reports, { download }) => reports.adResults(scope, queryOf(range, orderBy, { order, download })),
            { paged },
          );
        }
      }
      const full = ranges[0]!;
      const { acmeDirect } = traffic.campaigns;
      await compare(`campaigns for ${name}, one campaign`, (reports) =>
        reports.campaigns(scope, queryOf(full, "name" as const, { ids: { campaign_id: acmeDirect } })),
      );
      await compare(`campaigns for ${name}, one advertiser`, (reports) =>
        reports.campaigns(scope, queryOf(full, "name" as const, { ids: { advertiser_id: traffic.acme.id } })),
      );
      await compare(`ads for ${name}, one campaign`, (reports) =>
        reports.adResults(scope, queryOf(full, "ctr" as const, { ids: { campaign_id: acmeDirect } })),
      );
      await compare(`ads for ${name}, one ad`, (reports) => reports.adResults(scope, queryOf(full, "ctr" as const, { ids: { ad_id: traffic.ads.bulb } })));
    }
  });

  it("answer the detailed reports row for row, sub-publisher rows and pages by day included", async () => {
    let subPublisherRows = 0;
    for (const [name, scope] of [scopes[0]!, ...advertiserScopes]) {
      for (const range of ranges) {
        for (const { orderBy, order, paged } of sorts(DETAILED_REPORT_ORDER_BY, range, name)) {
          const label = `${name} ${range.startDate}..${range.endDate} ${range.zone} by ${orderBy} ${order}`;
          const campaigns = await compare(
            `campaigns detailed for ${label}`,
            (reports, { download }) => reports.campaignsDetailed(scope, queryOf(range, orderBy, { order, download })),
            { paged },
          );
          await compare(`ads detailed for ${label}`, (reports, { download }) => reports.adsDetailed(scope, queryOf(range, orderBy, { order, download })), {
            paged,
          });
          subPublisherRows += campaigns.filter((row) => row.level === "sub_publisher").length;
        }
      }
      const full = ranges[0]!;
      const { acmeNetwork } = traffic.campaigns;
      await compare(`campaigns detailed for ${name}, one campaign`, (reports, { download }) =>
        reports.campaignsDetailed(scope, queryOf(full, "day" as const, { download, ids: { campaign_id: acmeNetwork } })),
      );
      await compare(`ads detailed for ${name}, one ad`, (reports, { download }) =>
        reports.adsDetailed(scope, queryOf(full, "day" as const, { download, ids: { ad_id: traffic.ads.tea } })),
      );
      await compare(`ads detailed for ${name}, one advertiser`, (reports, { download }) =>
        reports.adsDetailed(scope, queryOf(full, "clicks_total" as const, { download, ids: { advertiser_id: traffic.bolt.id } })),
      );
    }
    expect(subPublisherRows).toBeGreaterThan(0);
  });

  it("show each campaign's page alike, or neither when it is out of the caller's scope", async () => {
    let shown = 0;
    for (const [name, scope] of scopes) {
      for (const range of ranges) {
        for (const campaignId of Object.values(traffic.campaigns)) {
          for (const withAds of [true, false]) {
            const query = queryOf(range, "day");
            const expected = await postgres.campaign(scope, campaignId, query, { withAds });
            expect(await clickhouse.campaign(scope, campaignId, query, { withAds }), `campaign ${campaignId} for ${name}`).toEqual(expected);
            if (expected) shown += 1;
          }
        }
      }
    }
    expect(shown).toBeGreaterThan(0);
  });

  it("give the dashboard the same days, totals and invalid traffic", async () => {
    for (const [name, scope] of scopes) {
      for (const range of ranges) {
        expect(await clickhouse.metricsOverRange(scope, range), `metrics for ${name}`).toEqual(await postgres.metricsOverRange(scope, range));
        expect(await clickhouse.invalidTrafficByDay(scope, range), `invalid traffic for ${name}`).toEqual(await postgres.invalidTrafficByDay(scope, range));
      }
    }
  });

  it("are compared over figures that can differ: orders of every kind, filtered traffic of every reason", async () => {
    const staff = scopes[0]![1];
    const { total } = await clickhouse.metricsOverRange(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" });
    expect(total.conversions_total).toBeGreaterThan(0);
    expect(total.unverified_conversions).toBeGreaterThan(0);
    expect(total.uncredited_conversions).toBeGreaterThan(0);
    expect(total.sales_revenue).toBeGreaterThan(0);
    expect(total.duplicate_events).toBeGreaterThan(0);
    expect(total.bot_events).toBeGreaterThan(0);
    expect(total.invalid_events).toBeGreaterThan(0);
    const days = await clickhouse.invalidTrafficByDay(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" });
    for (const reason of ["session_mismatch_events", "token_reuse_events", "no_user_agent_events", "click_velocity_events"] as const) {
      expect(
        days.reduce((sum, day) => sum + day[reason], 0),
        reason,
      ).toBeGreaterThan(0);
    }
    // Shop one's verified order and its order of a click and a view credit both advertisers: each
    // counts them, the publisher once; the second is click-through for acme and the publisher, not for bolt.
    const shopOne = scopes.find(([name]) => name === "shop one")![1];
    const advertisers = await clickhouse.advertisers(shopOne, queryOf({ ...traffic.range, zone: "UTC" }, "advertiser")).page({ page: 1, perPage: 10 });
    const publisher = await clickhouse.publishers(shopOne, queryOf({ ...traffic.range, zone: "UTC" }, "publisher")).page({ page: 1, perPage: 10 });
    const byAdvertisers = advertisers.data.reduce((sum, row) => sum + row.conversions_total, 0);
    expect(publisher.data.map((row) => row.conversions_total)).toEqual([byAdvertisers - 2]);
    const clickThroughByAdvertisers = advertisers.data.reduce((sum, row) => sum + row.conversions_click, 0);
    expect(publisher.data.map((row) => row.conversions_click)).toEqual([clickThroughByAdvertisers - 1]);
    // Credit on another day than its click: the order's day counts it.
    const late = await pgPool().query<{ n: number }>(
      "SELECT count(*)::int AS n FROM attributions WHERE credited AND (event_created_at AT TIME ZONE 'UTC')::date < (placed_at AT TIME ZONE 'UTC')::date",
    );
    expect(late.rows[0]!.n).toBeGreaterThan(0);
  });

  it("are compared over click- and view-through credit, fractional units and clicks credited by orders of several days", async () => {
    const staff = scopes[0]![1];
    const { total, daily } = await clickhouse.metricsOverRange(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" });
    expect(total.conversions_click).toBeGreaterThan(0);
    expect(total.conversions_view).toBeGreaterThan(0);
    expect(total.conversions_click + total.conversions_view).toBe(total.conversions_total);
    expect(total.sales_revenue_click).toBeGreaterThan(0);
    expect(total.sales_revenue_click).toBeLessThan(total.sales_revenue);
    expect(total.units_sold % 1).not.toBe(0);
    expect(total.converted_clicks).toBeGreaterThan(0);
    expect(total.converted_clicks).toBeLessThanOrEqual(total.clicks_total);
    // A click that led to orders on two days counts once, on its own day.
    const credit = await pgPool().query<{ day: string; clicks: number; pairs: number; days: number }>(
      `SELECT to_char((event_created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS clicks, sum(orders)::int AS pairs,
              max(placed_days)::int AS days
         FROM (SELECT event_id, min(event_created_at) AS event_created_at, count(DISTINCT conversion_id) AS orders,
                      count(DISTINCT (placed_at AT TIME ZONE 'UTC')::date) AS placed_days
                 FROM attributions WHERE credited AND match = 'sku' AND event_kind = 'click' GROUP BY event_id) credited_clicks
        GROUP BY 1 ORDER BY 1`,
    );
    expect(Math.max(...credit.rows.map((row) => row.days))).toBeGreaterThan(1);
    expect(credit.rows.reduce((sum, row) => sum + row.pairs, 0)).toBeGreaterThan(total.converted_clicks);
    const byDay = Object.fromEntries(credit.rows.map((row) => [row.day, row.clicks]));
    expect(daily.map((day) => day.converted_clicks)).toEqual(daily.map((day) => byDay[day.day] ?? 0));
    // Half a millionth rounds to even in both stores: the order of 1/128 kettle counts 7812 millionths.
    const units = await pgPool().query<{ units: string }>("SELECT round(quantity * 1000000)::text AS units FROM attributions WHERE quantity = 0.0078125");
    expect(units.rows).toEqual([{ units: "7812" }]);
    expect(await selectRows("SELECT toString(toInt128(round(quantity * 1000000))) AS units FROM attributions WHERE quantity = 0.0078125")).toEqual([
      { units: "7812" },
    ]);
  });

  it("are compared over halo credit, which counts apart from every other figure, of credited orders alone", async () => {
    const staff = scopes[0]![1];
    const { total } = await clickhouse.metricsOverRange(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" });
    expect(total).toEqual((await postgres.metricsOverRange(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" })).total);
    // The descaler with the order of a click and a view (6.00) and alone (3 × 5.00); with the uncredited order, nowhere.
    expect(total.halo_conversions).toBe(2);
    expect(total.halo_sales_revenue).toBe(21);
    const lines = await pgPool().query<{ match: string; credited: boolean; orders: number; micros: string }>(
      `SELECT match::text, credited, count(DISTINCT conversion_id)::int AS orders, sum(total_value_micros)::text AS micros
         FROM attributions GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const of = (match: string, credited: boolean) => lines.rows.find((row) => row.match === match && row.credited === credited)!;
    expect([of("halo", true).orders, Number(of("halo", true).micros), of("halo", false).orders]).toEqual([2, 21_000_000, 1]);
    // Orders and sales are those of the campaigns' own SKUs: the order of the descaler alone is no
    // conversion, and no halo line adds to sales, credited or not.
    expect(total.conversions_total).toBe(of("sku", true).orders);
    expect(total.sales_revenue).toBe(Number(of("sku", true).micros) / 1e6);
    expect(total.uncredited_conversions).toBe(of("sku", false).orders);
    expect(total.uncredited_sales_revenue).toBe(Number(of("sku", false).micros) / 1e6);
    const credited = await pgPool().query<{ orders: number }>("SELECT count(DISTINCT conversion_id)::int AS orders FROM attributions WHERE credited");
    expect(credited.rows[0]!.orders).toBe(total.conversions_total + 1);
    // The halo shopper's click earned halo credit alone: no converted click.
    const haloClick = await pgPool().query<{ converted: number }>(
      `SELECT count(*)::int AS converted FROM attributions h
        WHERE h.match = 'halo' AND h.credited AND h.event_kind = 'click'
          AND NOT EXISTS (SELECT 1 FROM attributions s WHERE s.event_id = h.event_id AND s.match = 'sku' AND s.credited)`,
    );
    expect(haloClick.rows[0]!.converted).toBe(1);
    // Both credited halo lines are acme's, on shop one: acme's totals count them, and its row in shop one's report.
    const acme = advertiserScopes[0]![1];
    const acmeTotal = (await clickhouse.metricsOverRange(acme, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" })).total;
    expect([acmeTotal.halo_conversions, acmeTotal.halo_sales_revenue]).toEqual([2, 21]);
    const shopOne = scopes.find(([name]) => name === "shop one")![1];
    const advertisers = await clickhouse.advertisers(shopOne, queryOf({ ...traffic.range, zone: "UTC" }, "advertiser")).page({ page: 1, perPage: 10 });
    const acmeRow = advertisers.data.find((row) => row.advertiser_id === traffic.acme.id)!;
    expect([acmeRow.halo_conversions, acmeRow.halo_sales_revenue]).toEqual([2, 21]);
  });

  it("are compared over new-to-brand orders and sales: a shopper's first purchase of a brand at a publisher, not a repeat by user id or e-mail", async () => {
    const staff = scopes[0]![1];
    const { total } = await clickhouse.metricsOverRange(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" });
    expect(total).toEqual((await postgres.metricsOverRange(staff, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" })).total);
    // Postgres's attribution says which lines are new to their brand; ClickHouse counts what it was sent.
    const orders = await pgPool().query<{ user_id: string; placed: string; new_to_brand: boolean }>(
      `SELECT DISTINCT user_id, to_char(placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS placed, new_to_brand
         FROM attributions WHERE credited AND match = 'sku' AND user_id IN ('late-buyer', 'member', 'guest') ORDER BY 2, 1`,
    );
    expect(orders.rows).toEqual([
      { user_id: "member", placed: "2026-11-09", new_to_brand: true },
      { user_id: "guest", placed: "2026-11-10", new_to_brand: false },
      { user_id: "late-buyer", placed: "2026-11-10", new_to_brand: true },
      { user_id: "late-buyer", placed: "2026-11-11", new_to_brand: false },
    ]);
    const ntb = await pgPool().query<{ orders: number; micros: string }>(
      `SELECT count(DISTINCT conversion_id)::int AS orders, sum(total_value_micros)::text AS micros
         FROM attributions WHERE credited AND match = 'sku' AND new_to_brand`,
    );
    expect([total.ntb_conversions, total.ntb_sales_revenue]).toEqual([ntb.rows[0]!.orders, Number(ntb.rows[0]!.micros) / 1e6]);
    expect(total.ntb_conversions).toBeGreaterThan(0);
    expect(total.ntb_conversions).toBeLessThan(total.conversions_total);
    expect(total.ntb_sales_revenue).toBeLessThan(total.sales_revenue);
    // Acme's direct campaign, where both repeats were bought: each store's row has new-to-brand orders, fewer than its orders.
    const campaignRows = async (reports: ReportReads) =>
      (
        await reports
          .campaigns(staff, queryOf({ ...traffic.range, zone: "UTC" }, "name" as const, { ids: { campaign_id: traffic.campaigns.acmeDirect } }))
          .page({ page: 1, perPage: 10 })
      ).data;
    const [fromClickhouse, fromPostgres] = [await campaignRows(clickhouse), await campaignRows(postgres)];
    expect(fromClickhouse).toEqual(fromPostgres);
    const row = fromClickhouse[0]!;
    expect(row.ntb_conversions).toBeGreaterThan(0);
    expect(row.ntb_conversions).toBeLessThan(row.conversions_total);
    expect(row.ntb_sales_revenue).toBeGreaterThan(0);
    expect(row.ntb_sales_revenue).toBeLessThan(row.sales_revenue);
  });

  it("are compared over orders without proof on a publisher that credits only proven ones: no click converted, no purchase, apart from every figure", async () => {
    const strict = scopes.find(([name]) => name === "strict shop")![1];
    const [fromClickhouse, fromPostgres] = [
      await clickhouse.metricsOverRange(strict, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" }),
      await postgres.metricsOverRange(strict, { ...{ ...traffic.range, zone: "UTC" }, zone: "UTC" }),
    ];
    expect(fromClickhouse.total).toEqual(fromPostgres.total);
    const lines = await pgPool().query<{ user_id: string; placed: string; credited: boolean; new_to_brand: boolean }>(
      `SELECT user_id, to_char(placed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS placed, credited, new_to_brand
         FROM attributions WHERE user_id IN ('proven-later', 'unproven-only') ORDER BY 2, 1`,
    );
    expect(lines.rows).toEqual([
      { user_id: "proven-later", placed: PARITY_DAYS[1], credited: false, new_to_brand: false },
      { user_id: "unproven-only", placed: PARITY_DAYS[1], credited: false, new_to_brand: false },
      { user_id: "proven-later", placed: PARITY_DAYS[2], credited: true, new_to_brand: true },
    ]);
    // Converted clicks are those with a credited line of their own SKU: the unproven-only shopper's is not one.
    const converted = await pgPool().query<{ n: number }>(
      `SELECT count(DISTINCT event_id)::int AS n FROM attributions WHERE publisher_id = $1 AND credited AND match = 'sku' AND event_kind = 'click'`,
      [traffic.strictShop.id],
    );
    expect(fromClickhouse.total.converted_clicks).toBe(converted.rows[0]!.n);
    const unproven = await pgPool().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM attributions a WHERE a.credited
          AND a.event_id IN (SELECT event_id FROM attributions WHERE user_id = 'unproven-only')`,
    );
    expect(unproven.rows[0]!.n).toBe(0);
    // The two orders of 99,999 are only in the unverified and uncredited figures.
    expect(fromClickhouse.total.sales_revenue).toBeLessThan(99_999);
    expect(fromClickhouse.total.uncredited_sales_revenue).toBeGreaterThanOrEqual(2 * 99_999);
  });

  it("read their figures from ClickHouse alone: emptied report tables in Postgres change nothing", async () => {
    const staff = scopes[0]![1];
    const acme = advertiserScopes[0]![1];
    const range = { ...traffic.range, zone: "UTC" };
    const reads = async () => ({
      advertisers: await clickhouse.advertisers(staff, queryOf(range, "advertiser")).page({ page: 1, perPage: 50 }),
      publishers: await clickhouse.publishers(staff, queryOf(range, "publisher")).page({ page: 1, perPage: 50 }),
      campaigns: await clickhouse.campaigns(staff, queryOf(range, "name")).page({ page: 1, perPage: 50 }),
      ads: await clickhouse.adResults(staff, queryOf(range, "name")).page({ page: 1, perPage: 50 }),
      campaignsDetailed: await everyRow(clickhouse.campaignsDetailed(acme, queryOf(range, "day", { download: true }))),
      adsDetailed: await clickhouse.adsDetailed(acme, queryOf(range, "day")).page({ page: 1, perPage: 50 }),
      campaign: await clickhouse.campaign(acme, traffic.campaigns.acmeNetwork, queryOf(range, "day")),
      metrics: await clickhouse.metricsOverRange(staff, range),
      invalid: await clickhouse.invalidTrafficByDay(staff, range),
    });
    const before = await reads();
    await pgPool().query("TRUNCATE daily_rollups, daily_campaign_totals, daily_ad_totals, daily_publisher_orders, daily_ad_row_counts");
    expect(await reads()).toEqual(before);
    expect(before.metrics.total.impressions_total).toBeGreaterThan(0);
    // Postgres's rows are back for the route tests below.
    await postgresStore.rollups.rebuild(KEPT_DAYS.startDate, KEPT_DAYS.endDate);
  });
});

describe("the report routes in ClickHouse mode", () => {
  const get = (handler: (request: Request) => Promise<Response>, key: string, query: string) =>
    handler(new Request(`http://tally.test/report?${query}`, { headers: { Authorization: `Bearer ${key}` } }));

  it("answer the JSON the Postgres store's rows make", async () => {
    const key = (await createApiKey({ actor: OPERATOR, accountId: traffic.acme.id, name: "reports" })).key;
    const query = `start_date=${traffic.range.startDate}&end_date=${traffic.range.endDate}&order_by=clicks_total&order=asc&per_page=1&page=2`;
    const response = await get(handleCampaignListing, key, query);
    expect(response.status).toBe(200);
    const parsed = parseReportQuery(new URLSearchParams(query), { ids: ["advertiser_id", "campaign_id"], orderBy: CAMPAIGN_LISTING_ORDER_BY }, UTC_ONLY);
    const expected = await postgres.campaigns(advertiserScopes[0]![1], parsed).page(parsed);
    expect(expected.data.length).toBeGreaterThan(0);
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(expected)));

    const networkKey = (await createApiKey({ actor: OPERATOR, accountId: traffic.network.id, name: "reports" })).key;
    const publishersQuery = `start_date=${traffic.range.startDate}&end_date=${traffic.range.endDate}&order_by=conversions_total`;
    const publishers = await get(handlePublisherReport, networkKey, publishersQuery);
    const parsedPublishers = parseReportQuery(new URLSearchParams(publishersQuery), { ids: ["publisher_id"], orderBy: PUBLISHER_REPORT_ORDER_BY }, UTC_ONLY);
    const network = scopes.find(([name]) => name === "network")![1];
    expect(await publishers.json()).toEqual(JSON.parse(JSON.stringify(await postgres.publishers(network, parsedPublishers).page(parsedPublishers))));
  });

  it("answer in a kept zone as the Postgres store does, naming the same UTC days before the zone's own", async () => {
    forgetReadableZones();
    const readable = await postgres.readableZones();
    expect(readable.find((z) => z.zone === "America/New_York")).toEqual({ zone: "America/New_York", utcDaysBefore: "2026-11-10" });
    expect(await clickhouse.readableZones()).toEqual(readable);
    const key = (await createApiKey({ actor: OPERATOR, accountId: traffic.acme.id, name: "zoned reports" })).key;
    for (const zone of ["America/New_York", "Australia/Lord_Howe"]) {
      const query = `start_date=2026-11-08&end_date=2026-11-12&time_zone=${zone}&order_by=clicks_total`;
      const response = await get(handleCampaignListing, key, query);
      expect(response.status).toBe(200);
      expect(response.headers.get(UTC_DAYS_BEFORE_HEADER)).toBe(zone === "America/New_York" ? "2026-11-10" : null);
      const parsed = parseReportQuery(
        new URLSearchParams(query),
        { ids: ["advertiser_id", "campaign_id"], orderBy: CAMPAIGN_LISTING_ORDER_BY },
        { defaultZone: "UTC", readable },
      );
      expect(parsed.zone).toBe(zone);
      const expected = await postgres.campaigns(advertiserScopes[0]![1], parsed).page(parsed);
      expect(expected.data.length).toBeGreaterThan(0);
      expect(await response.json()).toEqual(JSON.parse(JSON.stringify(expected)));
    }
  });

  it("download the XLSX file of the Postgres store's rows", async () => {
    const key = (await createApiKey({ actor: OPERATOR, accountId: traffic.acme.id, name: "downloads" })).key;
    const query = `start_date=${traffic.range.startDate}&end_date=${traffic.range.endDate}&download=true`;
    const response = await get(handleAdsDetailed, key, query);
    expect(response.status).toBe(200);
    const { rows: fromSheet, totals } = await reportSheet(await response.arrayBuffer(), ADS_DETAILED.columns);
    const parsed = parseReportQuery(
      new URLSearchParams(query),
      { ids: ["advertiser_id", "campaign_id", "ad_id"], orderBy: DETAILED_REPORT_ORDER_BY },
      UTC_ONLY,
    );
    const expected = await everyRow(postgres.adsDetailed(advertiserScopes[0]![1], parsed));
    expect(expected.some((row) => row.level === "sub_publisher")).toBe(true);
    expect(totals).not.toBeNull();
    expect(fromSheet).toEqual(expected.map((row) => ({ ...row, day: new Date(`${row.day}T00:00:00Z`) })));
  });
});
