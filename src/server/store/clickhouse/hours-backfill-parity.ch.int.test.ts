// ClickHouse's hourly cells made by upkeep's backfill alone, against the Postgres store's over the
// same traffic (report-parity-traffic.ts, UTC days 9-11 November): Postgres keeps UTC, São Paulo,
// Kathmandu and Lord Howe from 8 November; ClickHouse's hours (and the zones' days) start only on
// 13 November, after the traffic was shipped, so every cell it answers is one the backfill
// (upkeep/zone-backfill.ts, one UTC day a step per zone and grain) added. Every cell of each
// caller must equal Postgres's, recounted from the same raw rows, and ClickHouse's check must find
// nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalZone } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { reportScope, STAFF_CALLER, scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { postgresStore } from "@/server/store/postgres/postgres-store";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { backfillZones } from "@/server/upkeep/zone-backfill";
import { keepClickhouseZone } from "@/testing/clickhouse-report-zones";
import { seedParityTraffic } from "@/testing/report-parity-traffic";
import { clickhouseStore } from "./clickhouse-store";

const POSTGRES_FROM = "2026-11-08T00:00:00.000Z";
const CLICKHOUSE_FROM = "2026-11-13T00:00:00.000Z";
const ZONES = ["UTC", canonicalZone("America/Sao_Paulo")!, canonicalZone("Asia/Kathmandu")!, canonicalZone("Australia/Lord_Howe")!];
const WIDE = { startDate: "2026-11-08", endDate: "2026-11-12" };

let scopes: [string, ReportScope][];

beforeAll(async () => {
  expect(store().name).toBe("clickhouse");
  await pgPool().query("UPDATE report_zones SET hours_since = $1 WHERE zone = 'UTC'", [POSTGRES_FROM]);
  for (const zone of ZONES.slice(1)) await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [zone, POSTGRES_FROM]);
  await keepClickhouseZone("UTC", CLICKHOUSE_FROM, "1970-01-01T00:00:00.000Z");
  for (const zone of ZONES.slice(1)) await keepClickhouseZone(zone, CLICKHOUSE_FROM);
  const traffic = await seedParityTraffic();
  for (;;) {
    const shipped = await store().shipping!.ship();
    expect(shipped.error).toBeNull();
    if (shipped.batches === 0) break;
  }
  await postgresStore.rollups.rebuild(WIDE.startDate, WIDE.endDate);
  expect(await postgresStore.rollups.verify(WIDE.startDate, WIDE.endDate)).toEqual([]);
  scopes = [
    ["staff", await reportScope(STAFF_CALLER)],
    ["acme", await scopeOfAccount(traffic.acme.id)],
    ["shop one", await scopeOfAccount(traffic.shopOne.id)],
    ["network", await scopeOfAccount(traffic.network.id)],
  ];
}, 300_000);

const queryOf = (zone: string): ReportQuery<string> => ({ ...WIDE, zone, page: 1, perPage: 168, orderBy: "weekday", order: "asc", download: false, ids: {} });

describe("ClickHouse's hourly cells backfilled by upkeep", { timeout: 300_000 }, () => {
  it("are empty before the backfill, then equal Postgres's in every zone for every caller, and check clean", async () => {
    const before = await clickhouseStore.reports.hours(scopes[0]![1], queryOf("UTC"));
    expect(before.rows.filter((row) => row.impressions_total > 0)).toEqual([]);
    // Five UTC days (8-12 November) per zone and grain: hours in all four zones, days in the three not UTC.
    const behind = (await store().rollups.zoneBackfill.behind()).filter((b) => b.daysBehind > 0);
    expect(behind.map((b) => `${b.zone} ${b.grain} ${b.daysBehind}`).sort()).toEqual(
      [...ZONES.map((zone) => `${zone} hours 5`), ...ZONES.slice(1).map((zone) => `${zone} days 5`)].sort(),
    );

    const result = await backfillZones({ days: 1_000, budgetMs: 300_000, statementTimeoutMs: 60_000 });
    expect(result.failed).toEqual([]);
    expect(result.moved).toHaveLength(35);
    expect((await store().rollups.zoneBackfill.behind()).filter((b) => b.daysBehind > 0)).toEqual([]);

    for (const zone of ZONES) {
      for (const [name, scope] of scopes) {
        const expected = await postgresStore.reports.hours(scope, queryOf(zone));
        expect(await clickhouseStore.reports.hours(scope, queryOf(zone)), `${zone}, ${name}`).toEqual(expected);
      }
      const staff = await clickhouseStore.reports.hours(scopes[0]![1], queryOf(zone));
      expect(staff.hoursSince.toISOString()).toBe(POSTGRES_FROM);
      expect(staff.rows.reduce((sum, row) => sum + row.conversions_total, 0)).toBeGreaterThan(5);
    }
    expect(await clickhouseStore.rollups.verify(WIDE.startDate, WIDE.endDate)).toEqual([]);
  });
});
