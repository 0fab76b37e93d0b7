// ClickHouse's hourly rollups in upkeep: the hours' backfill moves a zone's hours_since (UTC's too)
// back one UTC day a step toward Postgres's, and the cells it adds are each event's local day and
// hour in the zone as Node's Intl.DateTimeFormat places it from ClickHouse's raw rows (a tz
// database neither store wrote); a step run again counts once; /api/metrics counts the hours
// behind; the check finds a cell off by one and the rebuild recounts it; a zone Postgres drops
// loses its hourly rows too and starts afresh when kept again; a zone Postgres's tz data no longer
// knows is neither added, dropped, read nor backfilled, and a report in it is refused (503).
import { describe, expect, it } from "vitest";
import { UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { metricsText } from "@/server/upkeep/prometheus";
import { handleHours } from "@/testing/api/checked-report-routes";
import { beacon, get, seedAcme } from "@/testing/report-fixture";
import { insertRows, selectRows } from "./client";
import { clickhouseReadableZones, clickhouseZones, forgetClickhouseReadableZones, putZone, syncReportZones } from "./report-zones.sql";

const ZONE = "Asia/Kolkata";
const NOV_9 = Date.parse("2026-11-09T00:00:00Z");
const NOV_10 = Date.parse("2026-11-10T00:00:00Z");
const NOV_11 = Date.parse("2026-11-11T00:00:00Z");
let advertiserKey: string;

/** A moment's local day and hour in a zone, by Intl: "YYYY-MM-DD HH". */
function localHourOf(at: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}`;
}

/** A zone's cells as hourly_rollups holds them: impressions and SKU-credited sales (micros) per "day hour". */
async function storedCells(zone: string): Promise<Record<string, [number, number]>> {
  const rows = await selectRows<{ cell: string; impressions: string; sales: string }>(
    `SELECT concat(toString(day), ' ', leftPad(toString(hour), 2, '0')) AS cell, sum(impressions) AS impressions, sum(sales_revenue_micros) AS sales
       FROM hourly_rollups WHERE zone = {zone:String} GROUP BY cell HAVING impressions > 0 OR sales != 0 ORDER BY cell`,
    { zone },
  );
  return Object.fromEntries(rows.map((row) => [row.cell, [Number(row.impressions), Number(row.sales)]]));
}

/** The same cells recounted from ClickHouse's raw rows at or after `from`, placed by Intl. */
async function recountedCells(zone: string, from: number): Promise<Record<string, [number, number]>> {
  const params = { from: new Date(from).toISOString().replace("T", " ").replace("Z", "") };
  const impressions = await selectRows<{ at: string }>(
    "SELECT toUnixTimestamp64Milli(created_at) AS at FROM ad_events WHERE status = 'counted' AND kind = 'impression' AND created_at >= {from:DateTime64(3, 'UTC')}",
    params,
  );
  const sales = await selectRows<{ at: string; micros: string }>(
    "SELECT toUnixTimestamp64Milli(placed_at) AS at, toString(total_value_micros) AS micros FROM attributions WHERE match = 'sku' AND credited AND placed_at >= {from:DateTime64(3, 'UTC')}",
    params,
  );
  const cells: Record<string, [number, number]> = {};
  const cell = (at: string) => (cells[localHourOf(new Date(Number(at)), zone)] ??= [0, 0]);
  for (const row of impressions) cell(row.at)[0] += 1;
  for (const row of sales) cell(row.at)[1] += Number(row.micros);
  return Object.fromEntries(Object.entries(cells).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const zoneOf = async (zone: string) => (await clickhouseZones()).find((z) => z.zone === zone);
const behindOf = async (zone: string, grain: "days" | "hours") =>
  (await store().rollups.zoneBackfill.behind()).find((b) => b.zone === zone && b.grain === grain)?.daysBehind;

describe("ClickHouse's hourly rollups in upkeep", () => {
  it("are backfilled per zone, UTC's too, one UTC day a step toward Postgres's hours_since, each event and line once in its local hour", async () => {
    const acme = await seedAcme();
    advertiserKey = acme.advertiserKey;
    // Either side of Kolkata's midnight into 10 November (+5:30), and 00:30 on 11 November there.
    for (const [session, at] of [
      ["before-midnight", "2026-11-09T18:29:59.999Z"],
      ["at-midnight", "2026-11-09T18:30:00.000Z"],
      ["next-day", "2026-11-10T19:00:00.000Z"],
    ] as const) {
      await beacon("impression", acme.cpc, acme.shopA, session, new Date(at));
    }
    expect((await store().shipping!.ship()).error).toBeNull();
    // Nothing was counted hourly yet: migration 8 started every zone's hours after its own run.
    expect(await storedCells(UTC)).toEqual({});

    // Postgres keeps Kolkata from 9 November and UTC's hours from then; ClickHouse's hourly rows as
    // if migration 8 had run at midnight into 11 November.
    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [ZONE, new Date(NOV_9)]);
    await pgPool().query("UPDATE report_zones SET hours_since = $1 WHERE zone = 'UTC'", [new Date(NOV_9)]);
    await putZone(UTC, 0, NOV_11);
    expect(await syncReportZones(Date.parse("2026-11-10T22:00:00Z"))).toEqual({ added: [ZONE], dropped: [] });
    expect(await zoneOf(ZONE)).toMatchObject({ sinceMs: NOV_11, hoursSinceMs: NOV_11 });

    expect(await behindOf(ZONE, "hours")).toBe(2);
    expect(await behindOf(UTC, "hours")).toBe(2);
    expect((await metricsText()).body).toContain(`tally_report_zone_days_behind{zone="${ZONE}",grain="hours"} 2`);

    const backfill = store().rollups.zoneBackfill;
    const first = await backfill.step(ZONE, "hours", 60_000);
    expect(first).toEqual({ zone: ZONE, grain: "hours", from: new Date(NOV_10), to: new Date(NOV_11) });
    // The day grain's start is carried over unchanged.
    expect(await zoneOf(ZONE)).toMatchObject({ sinceMs: NOV_11, hoursSinceMs: NOV_10 });
    const afterFirst = await storedCells(ZONE);
    expect(afterFirst).toEqual(await recountedCells(ZONE, NOV_10));

    // A step cut short after its inserts, before hours_since moved: run again, it adds nothing twice.
    await putZone(ZONE, NOV_11, NOV_11);
    expect(await backfill.step(ZONE, "hours", 60_000)).toEqual(first);
    expect(await storedCells(ZONE)).toEqual(afterFirst);

    expect((await backfill.step(ZONE, "hours", 60_000))?.from).toEqual(new Date(NOV_9));
    const all = await recountedCells(ZONE, NOV_9);
    // By hand: 23:59:59.999 on 9 November, midnight into 10 November, 00:30 on 11 November; the
    // fixture's events at noon UTC (17:30 there) and its order placed 30 minutes later, 23.00 credited.
    expect(all["2026-11-09 23"]?.[0]).toBe(1);
    expect(all["2026-11-10 00"]?.[0]).toBe(1);
    expect(all["2026-11-11 00"]?.[0]).toBe(1);
    expect(all["2026-11-10 18"]?.[1]).toBe(23_000_000);
    expect(await storedCells(ZONE)).toEqual(all);
    expect(await backfill.step(ZONE, "hours", 60_000)).toBeNull();
    expect(await behindOf(ZONE, "hours")).toBe(0);

    expect((await backfill.step(UTC, "hours", 60_000))?.from).toEqual(new Date(NOV_10));
    expect((await backfill.step(UTC, "hours", 60_000))?.from).toEqual(new Date(NOV_9));
    expect(await storedCells(UTC)).toEqual(await recountedCells(UTC, NOV_9));
    expect((await storedCells(UTC))["2026-11-09 18"]?.[0]).toBe(2);
    expect(await behindOf(UTC, "hours")).toBe(0);
    expect((await metricsText()).body).toContain(`tally_report_zone_days_behind{zone="${ZONE}",grain="hours"} 0`);
  });

  it("are checked per zone from hours_since: a cell off by one is found by its hour, and the rebuild recounts it", async () => {
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    const row = { zone: ZONE, day: "2026-11-10", hour: 7, publisher_id: "pub", advertiser_id: "adv", campaign_id: "cmp", impressions: 1 };
    await insertRows("hourly_rollups", [row], "");
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([
      expect.objectContaining({
        table: "hourly_rollups",
        zone: ZONE,
        day: "2026-11-10",
        hour: 7,
        campaign_id: "cmp",
        measure: "impressions",
        stored: "1",
        recounted: "0",
      }),
    ]);
    await store().rollups.rebuild("2026-11-09", "2026-11-11");
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    expect(await storedCells(ZONE)).toEqual(await recountedCells(ZONE, NOV_9));
    expect(await storedCells(UTC)).toEqual(await recountedCells(UTC, NOV_9));
  });

  it("of a zone Postgres drops go with its day rows, and a zone kept again starts afresh in both grains", async () => {
    await pgPool().query("DELETE FROM report_zones WHERE zone = $1", [ZONE]);
    expect(await syncReportZones()).toEqual({ added: [], dropped: [ZONE] });
    expect(await storedCells(ZONE)).toEqual({});
    const [orders] = await selectRows<{ n: string }>("SELECT count() AS n FROM hourly_order_rollups WHERE zone = {zone:String}", { zone: ZONE });
    expect(Number(orders?.n)).toBe(0);

    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [ZONE, new Date(NOV_9)]);
    expect(await syncReportZones(Date.parse("2026-11-10T22:00:00Z"))).toEqual({ added: [ZONE], dropped: [] });
    expect(await zoneOf(ZONE)).toMatchObject({ sinceMs: NOV_11, hoursSinceMs: NOV_11 });
    expect(await storedCells(ZONE)).toEqual({});
    while (await store().rollups.zoneBackfill.step(ZONE, "hours", 60_000));
    // Counted once: nothing of the zone's earlier rows is left to add to.
    expect(await storedCells(ZONE)).toEqual(await recountedCells(ZONE, NOV_9));
    while (await store().rollups.zoneBackfill.step(ZONE, "days", 60_000));
    const [days] = await selectRows<{ n: string }>("SELECT sum(impressions) AS n FROM zoned_report_rollups WHERE zone = {zone:String}", { zone: ZONE });
    const hourly = Object.values(await recountedCells(ZONE, NOV_9)).reduce((sum, [impressions]) => sum + impressions, 0);
    expect(Number(days?.n)).toBe(hourly);
  });

  it("leave out a zone Postgres's tz data no longer knows: not added, not dropped, not read, not backfilled; a report in it answers 503", async () => {
    const KYIV = "Europe/Kyiv";
    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [KYIV, new Date(NOV_9)]);
    await pgPool().query("INSERT INTO unknown_report_zones (zone) VALUES ($1), ($2)", [KYIV, ZONE]);
    expect(await syncReportZones(Date.parse("2026-11-10T22:00:00Z"))).toEqual({ added: [], dropped: [] });
    expect(await zoneOf(KYIV)).toBeUndefined();
    // Kolkata stays as ClickHouse keeps it (its views count on), but is read and backfilled no more.
    expect((await zoneOf(ZONE))?.sinceMs).toBeLessThan(Date.parse("2100-01-01"));
    forgetClickhouseReadableZones();
    expect(await clickhouseReadableZones()).toEqual([{ zone: "UTC", utcDaysBefore: null }]);
    expect((await store().rollups.zoneBackfill.behind()).filter((b) => b.zone !== UTC)).toEqual([]);

    const refused = await get(advertiserKey, `start_date=2026-11-01&end_date=2026-11-30&time_zone=${ZONE}`, handleHours);
    expect(refused.status).toBe(503);
    expect(JSON.stringify(refused.body)).toContain(`time_zone ${ZONE} cannot be read now`);
    expect((await get(advertiserKey, "start_date=2026-11-01&end_date=2026-11-30&time_zone=UTC", handleHours)).status).toBe(200);
  });
});
