// ClickHouse's hourly rollups (migration 8) and the hours read over them, from rows inserted
// straight into ad_events and attributions: each event in its local hour in every kept zone, 1 ms
// either side of a local hour's start (Kathmandu's +5:45, São Paulo's midnight, Lord Howe's
// midnight and its half-hour daylight-saving change), placed by Node's Intl.DateTimeFormat, a tz
// database neither store wrote; a zone's rows of several versions counted once; nothing before a
// zone's hours_since in any cell; distinct orders once per cell however many campaigns they span.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalZone } from "@/server/core/time-zones";
import type { HourRow } from "@/server/store/hours-report";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { clickhouseKeptZones, clickhouseZoneRows, keepClickhouseZone } from "@/testing/clickhouse-report-zones";
import { insertRows, runCommand } from "./client";
import { clickhouseHours } from "./hours-report.ch";
import { applyMigration, MIGRATIONS } from "./migrate.sql";
import { schemaOf } from "./schema";

const KATHMANDU = canonicalZone("Asia/Kathmandu")!;
const SAO_PAULO = canonicalZone("America/Sao_Paulo")!;
const LORD_HOWE = canonicalZone("Australia/Lord_Howe")!;
const HOURS_FROM = "2026-10-01T00:00:00.000Z";
const EPOCH = "1970-01-01T00:00:00.000Z";
// Moments a local hour starts at: Kathmandu's 06:00 on Tue 10 Nov (00:15 UTC), São Paulo's
// midnight into Tue 10 Nov (03:00 UTC), Lord Howe's midnight into Wed 11 Nov (+11, 13:00 UTC),
// and Lord Howe's 02:30 on Sun 4 Oct, when its clocks go from 02:00 (+10:30) to 02:30 (+11).
const BOUNDARIES = ["2026-11-10T00:15:00.000Z", "2026-11-10T03:00:00.000Z", "2026-11-10T13:00:00.000Z", "2026-10-03T15:30:00.000Z"];
// São Paulo's hours start later in its second version: at its midnight boundary exactly.
const SAO_PAULO_LATER = "2026-11-10T03:00:00.000Z";
const STAFF: ReportScope = { advertiserId: null, publisherIds: null, targetedPublisherIds: null };
const [advertiser, publisher, campaignOne, campaignTwo] = [`adv-${randomUUID()}`, `pub-${randomUUID()}`, `c1-${randomUUID()}`, `c2-${randomUUID()}`];

const minusMs = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();
/** ClickHouse's DateTime64 text of a moment. */
const chTime = (iso: string) => iso.replace("T", " ").replace("Z", "");
const eventMoments = [...BOUNDARIES.flatMap((boundary) => [minusMs(boundary), boundary]), minusMs(HOURS_FROM), HOURS_FROM];

/** The local weekday (0 = Sunday) and hour of a moment in a zone, by Intl. */
function localCell(iso: string, zone: string): { weekday: number; hour: number } {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "short", hour: "2-digit", hourCycle: "h23" }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return { weekday: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(part("weekday")), hour: Number(part("hour")) };
}

const query = (zone: string, more: Partial<ReportQuery<string>> = {}): ReportQuery<string> => ({
  startDate: "2026-09-01",
  endDate: "2026-12-31",
  zone,
  page: 1,
  perPage: 168,
  orderBy: "weekday",
  order: "asc",
  download: false,
  ids: {},
  ...more,
});
const busy = (rows: readonly HourRow[], figure: keyof HourRow) =>
  Object.fromEntries(rows.filter((row) => Number(row[figure]) > 0).map((row) => [`${row.weekday} ${row.hour}`, row[figure]]));
const total = (rows: readonly HourRow[]) => rows.reduce((sum, row) => sum + row.impressions_total, 0);
/** Expected counts per "weekday hour" of moments in a zone. */
const expectedCells = (moments: readonly string[], zone: string) => {
  const cells: Record<string, number> = {};
  for (const moment of moments) {
    const { weekday, hour } = localCell(moment, zone);
    cells[`${weekday} ${hour}`] = (cells[`${weekday} ${hour}`] ?? 0) + 1;
  }
  return cells;
};

const event = (at: string) => ({
  event_id: randomUUID(),
  kind: "impression",
  status: "counted",
  session_id: "s",
  ad_id: "ad",
  campaign_id: campaignOne,
  advertiser_id: advertiser,
  publisher_id: publisher,
  request_id: randomUUID(),
  ad_type: "product",
  placement_name: "search-top",
  context: "search",
  site: "shop",
  spend_micros: 1000,
  created_at: chTime(at),
  batch_id: 1,
});

/** A credited line of `conversion` to `campaign`, placed at `placed`, from a click at `clicked`. */
const line = (conversion: string, campaign: string, placed: string, clicked: string, eventId: string) => ({
  conversion_id: conversion,
  conversion_received_at: chTime(placed),
  item_position: campaign === campaignOne ? 0 : 1,
  publisher_id: publisher,
  order_id: conversion,
  session_id: "s",
  user_id: "u",
  product_sku: "sku",
  event_id: eventId,
  event_kind: "click",
  ad_id: "ad",
  campaign_id: campaign,
  advertiser_id: advertiser,
  request_id: randomUUID(),
  ad_type: "product",
  placement_name: "search-top",
  context: "search",
  site: "shop",
  event_created_at: chTime(clicked),
  placed_at: chTime(placed),
  price_micros: 5_000_000,
  promotional_price_micros: 5_000_000,
  quantity: 1,
  total_value_micros: 5_000_000,
  verified: true,
  credited: true,
  match: "sku",
  new_to_brand: false,
  created_at: chTime(placed),
  batch_id: 1,
});

// Kathmandu's boundary: one order at it spanning both campaigns, one 1 ms before it, both from a click 1 ms before it.
const [orderAt, orderBefore, click] = [randomUUID(), randomUUID(), randomUUID()];
const KATHMANDU_BOUNDARY = BOUNDARIES[0]!;

/** The kept zones as the migration (run as this file started, clickhouse-per-file.ts) left them. */
let afterMigration: Awaited<ReturnType<typeof clickhouseKeptZones>>;

beforeAll(async () => {
  afterMigration = await clickhouseKeptZones();
  // Merges would drop a zone's older versions whenever they like: held off, so the rows of several
  // versions are all there when the events arrive.
  await runCommand("SYSTEM STOP MERGES report_zones");
  await keepClickhouseZone("UTC", HOURS_FROM, EPOCH);
  for (const zone of [KATHMANDU, LORD_HOWE]) await keepClickhouseZone(zone, HOURS_FROM);
  // Kathmandu twice, São Paulo's hours moved later: several versions of a zone's row.
  await keepClickhouseZone(KATHMANDU, HOURS_FROM);
  await keepClickhouseZone(SAO_PAULO, HOURS_FROM);
  await keepClickhouseZone(SAO_PAULO, SAO_PAULO_LATER, HOURS_FROM);
  const versions = (zone: string) => zoneRows.filter((row) => row.zone === zone).length;
  const zoneRows = await clickhouseZoneRows();
  for (const zone of ["UTC", KATHMANDU, SAO_PAULO]) expect(versions(zone), zone).toBeGreaterThanOrEqual(2);
  await insertRows("ad_events", eventMoments.map(event), "");
  await insertRows(
    "attributions",
    [
      line(orderAt, campaignOne, KATHMANDU_BOUNDARY, minusMs(KATHMANDU_BOUNDARY), click),
      line(orderAt, campaignTwo, KATHMANDU_BOUNDARY, minusMs(KATHMANDU_BOUNDARY), click),
      line(orderBefore, campaignOne, minusMs(KATHMANDU_BOUNDARY), minusMs(KATHMANDU_BOUNDARY), click),
    ],
    "",
  );
  await runCommand("SYSTEM START MERGES report_zones");
});

describe("migration 8", () => {
  it("keeps UTC from 1970, its hours from the first whole hour a minute or more after it ran, and changes nothing when applied again", async () => {
    expect(afterMigration).toHaveLength(1);
    const [utc] = afterMigration;
    expect(utc).toMatchObject({ zone: "UTC", since: EPOCH });
    // The migration ran as this file started, a minute ago at most.
    const start = Date.parse(utc!.hoursSince);
    expect(start % 3_600_000).toBe(0);
    expect(start - Date.now()).toBeGreaterThan(0);
    expect(start - Date.now()).toBeLessThanOrEqual(61 * 60_000);
    // Applied again, with its views there, it moves no zone's start: they have counted from it.
    const kept = await clickhouseKeptZones();
    await applyMigration(MIGRATIONS.find((migration) => migration.version === 8)!, schemaOf({ deduplicationWindow: 500 }));
    expect(await clickhouseKeptZones()).toEqual(kept);
  });
});

describe("the hourly rollups", () => {
  it("put each event in its local hour in every kept zone, 1 ms before a local hour in the hour before, and nothing before hours_since", async () => {
    const counted = eventMoments.filter((moment) => moment >= HOURS_FROM);
    for (const zone of ["UTC", KATHMANDU, LORD_HOWE]) {
      const { rows, hoursSince } = await clickhouseHours(STAFF, query(zone));
      expect(hoursSince.toISOString()).toBe(HOURS_FROM);
      expect(rows).toHaveLength(168);
      expect(busy(rows, "impressions_total"), zone).toEqual(expectedCells(counted, zone));
    }
    // Lord Howe's daylight-saving change: 01:59:59.999 (+10:30) then 02:30 (+11), on Sunday.
    const lordHowe = busy((await clickhouseHours(STAFF, query(LORD_HOWE))).rows, "impressions_total");
    expect(lordHowe).toMatchObject({ "0 1": 1, "0 2": 1 });
    // Kathmandu's boundary at 00:15 UTC: 05:59:59.999 and 06:00 on Tuesday.
    expect(busy((await clickhouseHours(STAFF, query(KATHMANDU))).rows, "impressions_total")).toMatchObject({ "2 5": 1, "2 6": 1 });
  });

  it("count a zone by its latest version only: São Paulo's hours from its later start, once each", async () => {
    const { rows, hoursSince } = await clickhouseHours(STAFF, query(SAO_PAULO));
    expect(hoursSince.toISOString()).toBe(SAO_PAULO_LATER);
    expect(busy(rows, "impressions_total")).toEqual(
      expectedCells(
        eventMoments.filter((moment) => moment >= SAO_PAULO_LATER),
        SAO_PAULO,
      ),
    );
    // Midnight into Tuesday is counted; 1 ms before it (Monday 23:00) was before the zone's hours.
    expect(busy(rows, "impressions_total")).toMatchObject({ "2 0": 1 });
    expect(rows[1 * 24 + 23]!.impressions_total).toBe(0);
  });

  it("count each order once per cell however many campaigns it spans, on the hour it was placed, and a converted click on the click's hour", async () => {
    const kathmandu = (await clickhouseHours(STAFF, query(KATHMANDU))).rows;
    expect(busy(kathmandu, "conversions_total")).toEqual({ "2 5": 1, "2 6": 1 });
    // Three lines of 5.00: two at 06:00 (the order spanning both campaigns), one before.
    expect(busy(kathmandu, "sales_revenue")).toEqual({ "2 5": 5, "2 6": 10 });
    expect(busy(kathmandu, "converted_clicks")).toEqual({ "2 5": 1 });
    const utc = (await clickhouseHours(STAFF, query("UTC"))).rows;
    expect(busy(utc, "conversions_total")).toEqual({ "2 0": 2 });
    const oneCampaign = (await clickhouseHours(STAFF, query(KATHMANDU, { ids: { campaign_id: campaignTwo } }))).rows;
    expect(busy(oneCampaign, "conversions_total")).toEqual({ "2 6": 1 });
    expect(busy(oneCampaign, "impressions_total")).toEqual({});
  });

  it("count a shipped batch sent again with its deduplication token once", async () => {
    const before = (await clickhouseHours(STAFF, query(KATHMANDU))).rows;
    // Wednesday 11 Nov, 12:00 UTC: 17:45 in Kathmandu. The shipper's retry sends the same rows and token.
    const retried = [event("2026-11-11T12:00:00.000Z"), event("2026-11-11T12:00:00.000Z")];
    for (let attempt = 0; attempt < 2; attempt++) await insertRows("ad_events", retried, "batch-retried");
    const after = (await clickhouseHours(STAFF, query(KATHMANDU))).rows;
    expect(after[3 * 24 + 17]!.impressions_total - before[3 * 24 + 17]!.impressions_total).toBe(2);
    expect(total(after) - total(before)).toBe(2);
  });

  it("refuse a zone whose hours ClickHouse does not keep, as the Postgres store does", async () => {
    expect((await clickhouseKeptZones()).map((zone) => zone.zone)).not.toContain("Europe/Paris");
    await expect(clickhouseHours(STAFF, query("Europe/Paris"))).rejects.toMatchObject({
      code: "bad_request",
      message: "hours are not kept in the time zone Europe/Paris; they are kept in UTC and each account's zone",
    });
  });
});
