// ClickHouse's copy of report_zones and its backfill: a zone Postgres keeps reaches ClickHouse on
// the shipper's next run, from the next UTC midnight when events after Postgres's since were
// already shipped; each backfill step moves its since back one UTC day and adds that day's events
// on their local days (worked out here with Intl.DateTimeFormat from the raw rows, a reference
// neither store wrote); a step cut short before its since moved and run again counts once; the
// check finds a zone's figure off by one and the rebuild recounts it; a zone
// Postgres drops is no longer read, and its rows go. The export's daily aggregates of a local day in
// the zone read the zone's rows.
import { describe, expect, it } from "vitest";
import { localRangeSpan } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { beacon, seedAcme } from "@/testing/report-fixture";
import { insertRows, selectRows } from "./client";
import { clickhouseReadableZones, clickhouseZones, forgetClickhouseReadableZones, putZone, syncReportZones } from "./report-zones.sql";

const ZONE = "Asia/Kolkata";
let acmeId: string;
const localDay = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: ZONE, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

/** The zone's impressions per local day as its rows hold them. */
async function zonedImpressions(): Promise<Record<string, number>> {
  const rows = await selectRows<{ day: string; n: string }>(
    "SELECT toString(day) AS day, sum(impressions) AS n FROM zoned_report_rollups WHERE zone = {zone:String} GROUP BY day HAVING n > 0 ORDER BY day",
    { zone: ZONE },
  );
  return Object.fromEntries(rows.map((row) => [row.day, Number(row.n)]));
}

/** Counted impressions from `from` on per local day, from ClickHouse's raw rows, days by Intl. */
async function recounted(from: Date): Promise<Record<string, number>> {
  const rows = await selectRows<{ at: string }>(
    "SELECT toUnixTimestamp64Milli(created_at) AS at FROM ad_events WHERE status = 'counted' AND kind = 'impression' AND created_at >= {from:DateTime64(3, 'UTC')}",
    { from: from.toISOString().replace("T", " ").replace("Z", "") },
  );
  const days: Record<string, number> = {};
  for (const row of rows) {
    const day = localDay(new Date(Number(row.at)));
    days[day] = (days[day] ?? 0) + 1;
  }
  return days;
}

const sinceOf = async (zone: string) => (await clickhouseZones()).find((z) => z.zone === zone)?.sinceMs;

describe("ClickHouse's kept zones", () => {
  it("follow Postgres's, and the backfill moves a zone's since back one UTC day a step, counting each event once on its local day", async () => {
    const acme = await seedAcme();
    acmeId = acme.acmeId;
    // Either side of Kolkata's midnights (+5:30): 23:59:59.999 and 00:00 of 10 November, 00:30 of 11 November.
    for (const [session, at] of [
      ["before-midnight", "2026-11-09T18:29:59.999Z"],
      ["at-midnight", "2026-11-09T18:30:00.000Z"],
      ["next-day", "2026-11-10T19:00:00.000Z"],
    ] as const) {
      await beacon("impression", acme.cpc, acme.shopA, session, new Date(at));
    }
    expect((await store().shipping!.ship()).error).toBeNull();

    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [ZONE, new Date("2026-11-09T00:00:00Z")]);
    // Events after Postgres's since are shipped already: ClickHouse's rows start at the next UTC midnight.
    expect(await syncReportZones(Date.parse("2026-11-10T22:00:00Z"))).toEqual({ added: [ZONE], dropped: [] });
    expect(await sinceOf(ZONE)).toBe(Date.parse("2026-11-11T00:00:00Z"));
    expect(await syncReportZones(Date.parse("2026-11-10T22:00:00Z"))).toEqual({ added: [], dropped: [] });
    forgetClickhouseReadableZones();
    expect(await clickhouseReadableZones()).toEqual([
      { zone: "UTC", utcDaysBefore: null },
      { zone: ZONE, utcDaysBefore: "2026-11-11" },
    ]);
    expect(await zonedImpressions()).toEqual({});

    const backfill = store().rollups.zoneBackfill;
    expect((await backfill.behind()).find((b) => b.zone === ZONE)?.daysBehind).toBe(2);
    const first = await backfill.step(ZONE, "days", 60_000);
    expect(first).toEqual({ zone: ZONE, grain: "days", from: new Date("2026-11-10T00:00:00Z"), to: new Date("2026-11-11T00:00:00Z") });
    expect(await zonedImpressions()).toEqual(await recounted(new Date("2026-11-10T00:00:00Z")));

    // A step cut short after its inserts, before its since moved: run again, it adds nothing twice.
    const afterFirst = await zonedImpressions();
    await putZone(ZONE, Date.parse("2026-11-11T00:00:00Z"), Date.parse("2026-11-11T00:00:00Z"));
    expect(await backfill.step(ZONE, "days", 60_000)).toEqual(first);
    expect(await zonedImpressions()).toEqual(afterFirst);

    expect((await backfill.step(ZONE, "days", 60_000))?.from).toEqual(new Date("2026-11-09T00:00:00Z"));
    const all = await recounted(new Date("2026-11-09T00:00:00Z"));
    // By hand: 23:59:59.999 on 9 November, then 10 November's own impressions (the fixture's seven at noon UTC, and midnight's), then 00:30 on 11 November.
    expect(all["2026-11-09"]).toBe(1);
    expect(all["2026-11-11"]).toBe(1);
    expect(await zonedImpressions()).toEqual(all);
    // Postgres's since reached: nothing more to move.
    expect(await backfill.step(ZONE, "days", 60_000)).toBeNull();
    expect((await backfill.behind()).find((b) => b.zone === ZONE)?.daysBehind).toBe(0);
  });

  it("export an advertiser's daily aggregates on its local day in the zone, as the zone's rows count it", async () => {
    const day = "2026-11-10";
    const span = localRangeSpan({ startDate: day, endDate: day }, ZONE);
    const batch = store().exports.batch("advertisers", await scopeOfAccount(acmeId), { rangeStart: span.from, rangeEnd: span.to, zone: ZONE });
    const rows: Record<string, unknown>[] = [];
    for await (const page of batch.read({})) rows.push(...(page as Record<string, unknown>[]));
    const acmeImpressions = await selectRows<{ at: string }>(
      "SELECT toUnixTimestamp64Milli(created_at) AS at FROM ad_events WHERE status = 'counted' AND kind = 'impression' AND advertiser_id = {acme:String}",
      { acme: acmeId },
    );
    const expected = acmeImpressions.filter((row) => localDay(new Date(Number(row.at))) === day).length;
    // The fixture's seven at noon UTC and the one at Kolkata's midnight; not the one 1 ms before it.
    expect(expected).toBe(8);
    expect(rows.map((row) => [row.advertiser_id, row.impressions_total])).toEqual([[acmeId, expected]]);
  });

  it("are checked and rebuilt per zone: an impression nobody saw is found on its local day, and a rebuild recounts it away", async () => {
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    const row = {
      zone: ZONE,
      day: "2026-11-10",
      publisher_id: "pub",
      site: "site",
      advertiser_id: "adv",
      campaign_id: "cmp",
      ad_id: "ad",
      placement_name: "p",
      impressions: 1,
    };
    await insertRows("zoned_report_rollups", [row], "");
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([
      expect.objectContaining({
        table: "zoned_report_rollups",
        zone: ZONE,
        day: "2026-11-10",
        ad_id: "ad",
        measure: "impressions",
        stored: "1",
        recounted: "0",
      }),
    ]);
    expect(await store().rollups.rebuild("2026-11-09", "2026-11-11")).toBeGreaterThan(0);
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    expect(await zonedImpressions()).toEqual(await recounted(new Date("2026-11-09T00:00:00Z")));
  });

  it("stop reading a zone Postgres no longer keeps, and drop its rows", async () => {
    await pgPool().query("DELETE FROM report_zones WHERE zone = $1", [ZONE]);
    expect(await syncReportZones()).toEqual({ added: [], dropped: [ZONE] });
    forgetClickhouseReadableZones();
    expect(await clickhouseReadableZones()).toEqual([{ zone: "UTC", utcDaysBefore: null }]);
    expect(await zonedImpressions()).toEqual({});
  });
});
