// Upkeep's backfill of kept zones: a zone added late moves its start back a UTC day at a time over
// the days whose raw rows are held (never a day retention dropped), one transaction per zone-day;
// its rows then equal a recount and the check finds nothing; a second run adds nothing; a zone-day
// that fails is left for the next run and the other zones go on.
import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { localDay } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { store } from "@/server/store";
import { rebuildRollups, verifyRollups } from "@/server/store/postgres/verify-rollups.sql";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, type ServedTarget, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion, settleAll } from "@/testing/settle";
import { rowsOf } from "@/testing/zone-rows";
import { metricsText } from "./prometheus";
import { backfillZones } from "./zone-backfill";

const LIMITS = { days: 1000, budgetMs: 120_000, statementTimeoutMs: 30_000 };

async function starts(): Promise<Record<string, [string, string]>> {
  const { rows } = await pgPool().query<{ zone: string; since: Date; hours_since: Date }>("SELECT zone, since, hours_since FROM report_zones ORDER BY zone");
  return Object.fromEntries(rows.map((r) => [r.zone, [r.since.toISOString(), r.hours_since.toISOString()]]));
}

const keep = (zone: string, since: string) =>
  pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2) ON CONFLICT (zone) DO UPDATE SET since = $2, hours_since = $2", [
    zone,
    since,
  ]);

let served: ServedTarget;

describe("upkeep's backfill of kept zones", () => {
  beforeAll(async () => {
    const publisher = await makePublisher({ creditUnverified: true });
    const advertiser = await makeAdvertiser();
    const sku = `SKU-${randomUUID()}`;
    const { campaign, ad } = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      bidModel: "cpm",
      bid: 8,
      products: [{ sku, name: "Kettle" }],
    });
    served = { ad, campaign, publisher };
    const beacon = (kind: EventKind, session: string, at: string) =>
      recordAndSettle({
        claims: servedClaims({ ad, campaign, publisher }, session, { kind, at: new Date(at) }),
        body: { session_id: session, user_id: `user-${session}` },
        userAgent: CHROME,
        now: new Date(at),
      });
    // Kolkata is kept from 2026-11-23 (UTC midnight): the writers add what comes before to UTC only.
    await keep("Asia/Kolkata", "2026-11-23T00:00:00Z");
    for (const [kind, session, at] of [
      ["impression", "a", "2026-11-20T03:00:00Z"],
      ["click", "a", "2026-11-20T18:29:59.999Z"], // Kolkata 23:59:59.999 on the 20th
      ["impression", "b", "2026-11-20T18:30:00Z"], // Kolkata midnight of the 21st
      ["impression", "c", "2026-11-21T23:59:00Z"],
      ["impression", "d", "2026-11-22T22:00:00Z"], // Kolkata 03:30 on the 23rd, before its start
      ["impression", "e", "2026-11-23T00:00:00Z"], // at its start: Kolkata's rows from the writer
      ["view", "e", "2026-11-24T12:00:00Z"],
    ] as const)
      expect((await beacon(kind, session, at)).status).toBe("counted");
    // An order the day after the click, placed at Kolkata's midnight of the 22nd, credits it.
    await recordAndSettleConversion(
      {
        publisher_id: publisher.id,
        user_id: "user-a",
        session_id: "a",
        order_id: `o-${randomUUID()}`,
        created_at: "2026-11-21T18:30:00Z",
        channel: "online store",
        email_hashed: createHash("sha256").update("a@example.com").digest("hex"),
        items: [{ sku, quantity: 2, price: 10, promotional_price: 10 }],
      },
      new Date("2026-11-21T18:31:00Z"),
    );
    await attributePendingConversions({ settleMs: 0 });
    const { rows } = await pgPool().query("SELECT count(*)::int AS n FROM attributions");
    expect(rows[0].n).toBe(1);
  });

  it("never moves a zone back over a day retention dropped", async () => {
    // Kept from after the last event, as a zone added now is.
    await keep("Asia/Kathmandu", "2026-11-25T00:00:00Z");
    await pgPool().query(
      "INSERT INTO raw_retention (table_name, kept_from) VALUES ('ad_events', '2026-11-22') ON CONFLICT (table_name) DO UPDATE SET kept_from = '2026-11-22'",
    );
    try {
      expect((await store().rollups.zoneBackfill.behind()).find((b) => b.zone === "Asia/Kathmandu" && b.grain === "days")?.daysBehind).toBe(3);
      const done = await backfillZones(LIMITS);
      expect(done.failed).toEqual([]);
      expect((await starts())["Asia/Kathmandu"]).toEqual(["2026-11-22T00:00:00.000Z", "2026-11-22T00:00:00.000Z"]);
      expect((await store().rollups.zoneBackfill.behind()).every((b) => b.daysBehind === 0)).toBe(true);
      // Kathmandu (+5:45) has none of the 21st's events: its rows start at the 22nd's UTC midnight.
      const { rows } = await pgPool().query("SELECT min(day)::text AS first FROM daily_rollups WHERE zone = 'Asia/Kathmandu'");
      expect(rows[0].first).toBe("2026-11-23");
    } finally {
      await pgPool().query("DELETE FROM raw_retention WHERE table_name = 'ad_events'");
    }
  });

  it("moves each zone back to the first held raw day, its rows then equal a recount, and a second run adds nothing", async () => {
    // Retention no longer says the 20th and 21st are gone: two days each zone can still take.
    expect((await store().rollups.zoneBackfill.behind()).filter((b) => b.daysBehind > 0)).toEqual([
      { zone: "Asia/Kathmandu", grain: "days", start: new Date("2026-11-22T00:00:00Z"), daysBehind: 2 },
      { zone: "Asia/Kathmandu", grain: "hours", start: new Date("2026-11-22T00:00:00Z"), daysBehind: 2 },
      { zone: "Asia/Kolkata", grain: "days", start: new Date("2026-11-22T00:00:00Z"), daysBehind: 2 },
      { zone: "Asia/Kolkata", grain: "hours", start: new Date("2026-11-22T00:00:00Z"), daysBehind: 2 },
      { zone: "UTC", grain: "hours", start: new Date("2026-11-22T00:00:00Z"), daysBehind: 2 },
    ]);
    // /api/metrics says the same.
    const { body } = await metricsText();
    expect(body).toContain('tally_report_zone_days_behind{zone="Asia/Kolkata",grain="days"} 2');
    expect(body).toContain('tally_report_zone_days_behind{zone="UTC",grain="days"} 0');
    // One zone-day when the run may take one.
    const first = await backfillZones({ ...LIMITS, days: 1 });
    expect(first.moved).toEqual([{ zone: "Asia/Kathmandu", grain: "days", from: new Date("2026-11-21T00:00:00Z"), to: new Date("2026-11-22T00:00:00Z") }]);

    const done = await backfillZones(LIMITS);
    expect(done.failed).toEqual([]);
    // Kolkata's days moved one UTC day per step, down to the first day with ad events.
    expect(done.moved.filter((m) => m.zone === "Asia/Kolkata" && m.grain === "days").map((m) => [m.from.toISOString(), m.to.toISOString()])).toEqual([
      ["2026-11-21T00:00:00.000Z", "2026-11-22T00:00:00.000Z"],
      ["2026-11-20T00:00:00.000Z", "2026-11-21T00:00:00.000Z"],
    ]);
    const moved = await starts();
    for (const zone of ["UTC", "Asia/Kolkata", "Asia/Kathmandu"]) expect(moved[zone]![1]).toBe("2026-11-20T00:00:00.000Z");
    for (const zone of ["Asia/Kolkata", "Asia/Kathmandu"]) expect(moved[zone]![0]).toBe("2026-11-20T00:00:00.000Z");
    expect(moved.UTC![0]).toBe("1970-01-01T00:00:00.000Z");
    expect(await verifyRollups("2026-11-01", "2026-11-30")).toEqual([]);

    // Kolkata's local days: the click at 23:59:59.999 on the 20th, the impression at midnight on the 21st.
    const { rows: kolkata } = await pgPool().query(
      "SELECT day::text, hour, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions FROM hourly_campaign_totals WHERE zone = 'Asia/Kolkata' GROUP BY day, hour ORDER BY day, hour",
    );
    expect(kolkata).toEqual([
      { day: "2026-11-20", hour: 8, impressions: 1, clicks: 0, conversions: 0 },
      { day: "2026-11-20", hour: 23, impressions: 0, clicks: 1, conversions: 0 },
      { day: "2026-11-21", hour: 0, impressions: 1, clicks: 0, conversions: 0 },
      { day: "2026-11-22", hour: 0, impressions: 0, clicks: 0, conversions: 1 },
      { day: "2026-11-22", hour: 5, impressions: 1, clicks: 0, conversions: 0 },
      { day: "2026-11-23", hour: 3, impressions: 1, clicks: 0, conversions: 0 },
      { day: "2026-11-23", hour: 5, impressions: 1, clicks: 0, conversions: 0 },
      { day: "2026-11-24", hour: 17, impressions: 0, clicks: 0, conversions: 0 },
    ]);

    // The zones' rows are what a recount of the raw rows writes.
    const backfilled = { kolkata: await rowsOf("Asia/Kolkata"), kathmandu: await rowsOf("Asia/Kathmandu"), utc: await rowsOf("UTC") };
    expect(backfilled.kolkata.daily_publisher_orders).toHaveLength(2);
    expect(backfilled.kolkata.daily_ad_row_counts?.length).toBeGreaterThan(0);
    await rebuildRollups("2026-11-19", "2026-11-25");
    expect({ kolkata: await rowsOf("Asia/Kolkata"), kathmandu: await rowsOf("Asia/Kathmandu"), utc: await rowsOf("UTC") }).toEqual(backfilled);

    // Nothing left: a second run moves nothing and adds nothing.
    expect(await backfillZones(LIMITS)).toEqual({ moved: [], failed: [] });
    expect(await rowsOf("Asia/Kolkata")).toEqual(backfilled.kolkata);
  });

  it("leaves a zone-day that fails for the next run, and the other zones go on", async () => {
    await keep("America/Sao_Paulo", "2026-11-25T00:00:00Z");
    // A statement that cannot run in one zone (as a zone missing from the server's tz database would fail).
    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ('Nowhere/Atlantis', '2026-11-25T00:00:00Z', '2026-11-25T00:00:00Z')");
    try {
      // A run whose time is spent starts no zone-day.
      expect(await backfillZones({ ...LIMITS, budgetMs: 0 })).toEqual({ moved: [], failed: [] });
      const done = await backfillZones(LIMITS);
      expect(done.failed.map((f) => [f.zone, f.grain])).toEqual([
        ["Nowhere/Atlantis", "days"],
        ["Nowhere/Atlantis", "hours"],
      ]);
      expect(done.failed[0]!.error).toMatch(/time zone/);
      const after = await starts();
      expect(after["Nowhere/Atlantis"]).toEqual(["2026-11-25T00:00:00.000Z", "2026-11-25T00:00:00.000Z"]);
      expect(after["America/Sao_Paulo"]).toEqual(["2026-11-20T00:00:00.000Z", "2026-11-20T00:00:00.000Z"]);
    } finally {
      await pgPool().query("DELETE FROM report_zones WHERE zone = 'Nowhere/Atlantis'");
    }
    expect(await verifyRollups("2026-11-01", "2026-11-30")).toEqual([]);
  });

  it("counts each event once when its batch settles while the zone moves back over its day", async () => {
    // Tokyo is kept from the 25th; 120 impressions of the 21st to the 24th settle while upkeep moves
    // it back: a batch written before a zone-day's step is in its recount, one written after it
    // reads the new start and adds itself, whichever way they interleave.
    await keep("Asia/Tokyo", "2026-11-25T00:00:00Z");
    const moments = Array.from({ length: 120 }, (_, i) => new Date(Date.parse("2026-11-21T00:00:00Z") + i * 47 * 60_000 + 7_000));
    for (const at of moments) {
      const session = `race-${randomUUID()}`;
      await recordBeacon({ claims: servedClaims(served, session, { kind: "impression", at }), body: { session_id: session }, userAgent: CHROME, now: at });
    }
    const [done] = await Promise.all([backfillZones(LIMITS), settleAll(60_000)]);
    await settleAll();
    expect(done.failed).toEqual([]);
    expect((await starts())["Asia/Tokyo"]).toEqual(["2026-11-20T00:00:00.000Z", "2026-11-20T00:00:00.000Z"]);
    expect(await verifyRollups("2026-11-01", "2026-11-30")).toEqual([]);
    // Tokyo (+9) counted every one of them on its local day.
    const byDay = new Map<string, number>();
    for (const at of moments) byDay.set(localDay(at, "Asia/Tokyo"), (byDay.get(localDay(at, "Asia/Tokyo")) ?? 0) + 1);
    const { rows } = await pgPool().query<{ day: string; n: number }>(
      `SELECT day::text, sum(impressions)::int AS n FROM daily_campaign_totals
        WHERE zone = 'Asia/Tokyo' AND campaign_id = $1 AND day BETWEEN '2026-11-21' AND '2026-11-24' GROUP BY day ORDER BY day`,
      [served.campaign.id],
    );
    // Tokyo's 21st to 23rd also hold the first impressions above (b on the 21st, c on the 22nd, d and e on the 23rd).
    const earlier: Record<string, number> = { "2026-11-21": 1, "2026-11-22": 1, "2026-11-23": 2 };
    expect(rows).toEqual(
      [...byDay]
        .filter(([day]) => day <= "2026-11-24")
        .sort()
        .map(([day, n]) => ({ day, n: n + (earlier[day] ?? 0) })),
    );
  });
});
