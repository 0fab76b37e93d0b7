// The hours report in a kept zone other than UTC: seedAcme's events (report-fixture.ts), at
// 12:00-12:10 UTC on Tuesday 10 Nov 2026 and its order at 12:30, are at 17:30-17:40 and 18:00 in
// Asia/Kolkata (+5:30), and land in those local hours; a zone whose hours are not kept is refused.
import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalZone } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import type { HourRow } from "@/server/store/hours-report";
import { seedAcme } from "@/testing/report-fixture";
import { reportScope } from "./report-scope";

const HOURS_SINCE = "2026-10-01T00:00:00.000Z";
const TUESDAY = 2;
// The name the runtime's tz database keeps the zone under (Node 20's ICU: Asia/Calcutta), as report_zones and accounts do.
const KOLKATA = canonicalZone("Asia/Kolkata")!;
let acme: Awaited<ReturnType<typeof seedAcme>>;

beforeAll(async () => {
  await pgPool().query(sql`UPDATE report_zones SET hours_since = ${HOURS_SINCE}::timestamptz WHERE zone = 'UTC'`);
  await pgPool().query(sql`INSERT INTO report_zones (zone, since, hours_since) VALUES (${KOLKATA}, ${HOURS_SINCE}::timestamptz, ${HOURS_SINCE}::timestamptz)`);
  acme = await seedAcme();
});

const busy = (rows: readonly HourRow[]) => rows.filter((row) => row.impressions_total + row.clicks_total + row.conversions_total > 0);

describe("the hours report in Asia/Kolkata", () => {
  it("reads a kept zone's own local hours: in Asia/Kolkata the events are at 17:30 and the order at 18:00", async () => {
    const scope = await reportScope({ accountId: acme.acmeId, accountKind: "advertiser" });
    const query = {
      startDate: "2026-11-01",
      endDate: "2026-11-30",
      page: 1,
      perPage: 168,
      orderBy: "weekday",
      order: "asc" as const,
      download: false,
      ids: {},
    };
    const kolkata = await store().reports.hours(scope, { ...query, zone: KOLKATA });
    expect(kolkata.zone).toBe(KOLKATA);
    expect(kolkata.hoursSince.toISOString()).toBe(HOURS_SINCE);
    expect(kolkata.rows).toHaveLength(168);
    expect(busy(kolkata.rows)).toEqual([
      expect.objectContaining({ weekday: TUESDAY, hour: 17, impressions_total: 7, clicks_total: 2, conversions_total: 0 }),
      expect.objectContaining({ weekday: TUESDAY, hour: 18, impressions_total: 0, conversions_total: 1, sales_revenue: 23 }),
    ]);
    // A zone whose hours Tally does not keep is refused, not answered with empty cells.
    await expect(store().reports.hours(scope, { ...query, zone: "America/Sao_Paulo" })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("keeps UTC's hours beside, each event counted once in each zone", async () => {
    const scope = await reportScope({ accountId: acme.acmeId, accountKind: "advertiser" });
    const query = {
      startDate: "2026-11-01",
      endDate: "2026-11-30",
      page: 1,
      perPage: 168,
      orderBy: "weekday",
      order: "asc" as const,
      download: false,
      ids: {},
      zone: "UTC",
    };
    const utc = await store().reports.hours(scope, query);
    expect(busy(utc.rows)).toEqual([expect.objectContaining({ weekday: TUESDAY, hour: 12, impressions_total: 7, conversions_total: 1 })]);
  });
});
