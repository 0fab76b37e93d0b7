// The writers in many kept zones: each event and credited line lands on its local day and hour in
// every zone (half- and quarter-hour offsets, New York's 23- and 25-hour days, Lord Howe's
// half-hour change), at or after the zone's start only; a day's hourly cells add up to its row; a
// local week's figures are the events of that week counted here from the moments they were made;
// and the check finds nothing to correct.
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays } from "@/server/core/days";
import { localDay, localHour, startOfLocalDay } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { outcomeOf, recordAndSettleConversion, settleAll } from "@/testing/settle";
import { ORDER_MEASURES } from "./rollup-tables.sql";
import { MEASURES, verifyRollups } from "./verify-rollups.sql";

const ZONES = ["America/Sao_Paulo", "Asia/Kolkata", "Asia/Kathmandu", "America/New_York", "Australia/Lord_Howe"] as const;
const EVERY = ["UTC", ...ZONES];
const KEPT_FROM = "2026-01-01T00:00:00Z";
/** São Paulo is kept from later: the writers add what comes before to the other zones only. */
const SAO_PAULO_FROM = "2026-11-05T00:00:00Z";
const startOf = (zone: string) => new Date(zone === "America/Sao_Paulo" ? SAO_PAULO_FROM : KEPT_FROM);
const ms = (moment: Date, delta: number) => new Date(moment.getTime() + delta);

/** Moments to probe, each an impression of a campaign of its own. */
const PROBES: { name: string; at: Date }[] = [
  ...ZONES.flatMap((zone) => {
    const midnight = startOfLocalDay("2026-11-10", zone);
    return [
      { name: `${zone} 1 ms before midnight`, at: ms(midnight, -1) },
      { name: `${zone} midnight`, at: midnight },
    ];
  }),
  // New York's 23-hour day: 01:59:59.999 EST, then 03:00 EDT; the day's last millisecond.
  { name: "New York before the spring change", at: new Date("2026-03-08T06:59:59.999Z") },
  { name: "New York after the spring change", at: new Date("2026-03-08T07:00:00Z") },
  { name: "New York's 23-hour day's end", at: ms(startOfLocalDay("2026-03-09", "America/New_York"), -1) },
  // Its 25-hour day: 01:30 EDT and 01:30 EST, an hour apart, in the same local hour.
  { name: "New York 01:30 EDT", at: new Date("2026-11-01T05:30:00Z") },
  { name: "New York 01:30 EST", at: new Date("2026-11-01T06:30:00Z") },
  { name: "New York's 25-hour day's end", at: ms(startOfLocalDay("2026-11-02", "America/New_York"), -1) },
  // Lord Howe goes back half an hour at 02:00 (+11 to +10:30) on 5 April, forward at 02:00 on 4 October.
  { name: "Lord Howe 01:59:59.999 +11", at: new Date("2026-04-04T14:59:59.999Z") },
  { name: "Lord Howe 01:30 +10:30", at: new Date("2026-04-04T15:00:00Z") },
  { name: "Lord Howe 01:59:59.999 +10:30", at: new Date("2026-10-03T15:29:59.999Z") },
  { name: "Lord Howe 02:30 +11", at: new Date("2026-10-03T15:30:00Z") },
  { name: "before São Paulo's start", at: new Date("2026-11-04T12:00:00Z") },
  { name: "at São Paulo's start", at: new Date(SAO_PAULO_FROM) },
];

/** A click or an impression every 7 h 13 min from 8 November: the week campaign's traffic. */
const WEEK_TRAFFIC = Array.from({ length: 44 }, (_, i) => ({
  kind: (i % 3 === 0 ? "click" : "impression") as EventKind,
  at: new Date(Date.parse("2026-11-08T00:00:00Z") + i * (7 * 60 + 13) * 60_000),
}));

/** Orders placed around midnights (São Paulo's, Kathmandu's, Lord Howe's), each crediting a click of its own shopper. */
const ORDER_TIMES = [
  ms(startOfLocalDay("2026-11-12", "America/Sao_Paulo"), -1),
  startOfLocalDay("2026-11-12", "Asia/Kathmandu"),
  ms(startOfLocalDay("2026-11-12", "Asia/Kathmandu"), -1),
  startOfLocalDay("2026-11-13", "Australia/Lord_Howe"),
];

const campaignOf = new Map<string, string>();
let weekCampaign = "";
let ordersCampaign = "";

beforeAll(async () => {
  await pgPool().query("UPDATE report_zones SET hours_since = $1 WHERE zone = 'UTC'", [KEPT_FROM]);
  for (const zone of ZONES) await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, $2, $2)", [zone, startOf(zone)]);
  const publisher = await makePublisher({ creditUnverified: true });
  const advertiser = await makeAdvertiser();
  const sku = `SKU-${randomUUID()}`;
  const make = (productSku = `SKU-${randomUUID()}`) =>
    makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      bidModel: "cpm",
      bid: 2,
      products: [{ sku: productSku, name: "Lamp" }],
    });
  const accepted: string[] = [];
  const beacon = async (target: Awaited<ReturnType<typeof make>>, kind: EventKind, at: Date, user?: string) => {
    const session = `s-${randomUUID()}`;
    const { eventId } = await recordBeacon({
      claims: servedClaims({ ...target, publisher }, session, { kind, at }),
      body: { session_id: session, ...(user ? { user_id: user } : {}) },
      userAgent: CHROME,
      now: at,
    });
    accepted.push(eventId);
  };
  for (const probe of PROBES) {
    const target = await make();
    campaignOf.set(probe.name, target.campaign.id);
    await beacon(target, "impression", probe.at);
  }
  const week = await make();
  weekCampaign = week.campaign.id;
  for (const { kind, at } of WEEK_TRAFFIC) await beacon(week, kind, at);
  const orders = await make(sku);
  ordersCampaign = orders.campaign.id;
  for (const [i] of ORDER_TIMES.entries()) await beacon(orders, "click", new Date("2026-11-09T10:00:00Z"), `shopper-${i}`);
  await settleAll();
  for (const eventId of accepted) expect((await outcomeOf(eventId)).status).toBe("counted");
  for (const [i, placed] of ORDER_TIMES.entries())
    await recordAndSettleConversion(
      {
        publisher_id: publisher.id,
        user_id: `shopper-${i}`,
        session_id: `checkout-${i}`,
        order_id: `o-${randomUUID()}`,
        created_at: placed.toISOString(),
        channel: "online store",
        email_hashed: createHash("sha256").update(`shopper-${i}`).digest("hex"),
        items: [{ sku, quantity: 1, price: 12, promotional_price: 12 }],
      },
      ms(placed, 60_000),
    );
  await attributePendingConversions({ settleMs: 0 });
});

const cells = async (table: string, campaign: string, measure: string) =>
  (
    await pgPool().query<{ cell: string }>(
      `SELECT zone || ' ' || day::text || ${table.startsWith("hourly") ? "' ' || hour" : "''"} || ' ' || ${measure} AS cell FROM ${table}
        WHERE campaign_id = $1 ORDER BY 1`,
      [campaign],
    )
  ).rows.map((r) => r.cell);

describe("report rows in many kept zones", () => {
  it("put each event on its local day and hour in every zone from the zone's start, and only there", async () => {
    for (const probe of PROBES) {
      const zones = EVERY.filter((zone) => probe.at >= startOf(zone));
      const campaign = campaignOf.get(probe.name)!;
      expect(await cells("daily_campaign_totals", campaign, "impressions"), probe.name).toEqual(zones.map((z) => `${z} ${localDay(probe.at, z)} 1`).sort());
      expect(await cells("hourly_campaign_totals", campaign, "impressions"), probe.name).toEqual(
        zones.map((z) => `${z} ${localDay(probe.at, z)} ${localHour(probe.at, z)} 1`).sort(),
      );
    }
    // The same, written out for the edges that matter.
    const hourOf = async (name: string, zone: string) =>
      (await cells("hourly_campaign_totals", campaignOf.get(name)!, "impressions")).filter((c) => c.startsWith(`${zone} `));
    expect(await hourOf("Asia/Kathmandu 1 ms before midnight", "Asia/Kathmandu")).toEqual(["Asia/Kathmandu 2026-11-09 23 1"]);
    expect(await hourOf("Asia/Kathmandu midnight", "Asia/Kathmandu")).toEqual(["Asia/Kathmandu 2026-11-10 0 1"]);
    expect(await hourOf("Asia/Kathmandu midnight", "UTC")).toEqual(["UTC 2026-11-09 18 1"]);
    expect(await hourOf("Asia/Kolkata midnight", "Asia/Kathmandu")).toEqual(["Asia/Kathmandu 2026-11-10 0 1"]);
    expect(await hourOf("New York before the spring change", "America/New_York")).toEqual(["America/New_York 2026-03-08 1 1"]);
    expect(await hourOf("New York after the spring change", "America/New_York")).toEqual(["America/New_York 2026-03-08 3 1"]);
    expect(await hourOf("New York's 23-hour day's end", "America/New_York")).toEqual(["America/New_York 2026-03-08 23 1"]);
    expect(await hourOf("New York 01:30 EDT", "America/New_York")).toEqual(["America/New_York 2026-11-01 1 1"]);
    expect(await hourOf("New York 01:30 EST", "America/New_York")).toEqual(["America/New_York 2026-11-01 1 1"]);
    expect(await hourOf("New York's 25-hour day's end", "America/New_York")).toEqual(["America/New_York 2026-11-01 23 1"]);
    expect(await hourOf("Lord Howe 01:59:59.999 +11", "Australia/Lord_Howe")).toEqual(["Australia/Lord_Howe 2026-04-05 1 1"]);
    expect(await hourOf("Lord Howe 01:30 +10:30", "Australia/Lord_Howe")).toEqual(["Australia/Lord_Howe 2026-04-05 1 1"]);
    expect(await hourOf("Lord Howe 01:59:59.999 +10:30", "Australia/Lord_Howe")).toEqual(["Australia/Lord_Howe 2026-10-04 1 1"]);
    expect(await hourOf("Lord Howe 02:30 +11", "Australia/Lord_Howe")).toEqual(["Australia/Lord_Howe 2026-10-04 2 1"]);
    // Before São Paulo's start: in UTC and the zones kept all year, not São Paulo; at it, São Paulo's 21:00 of the 4th too.
    expect(await hourOf("before São Paulo's start", "America/Sao_Paulo")).toEqual([]);
    expect(await hourOf("before São Paulo's start", "UTC")).toEqual(["UTC 2026-11-04 12 1"]);
    expect(await hourOf("at São Paulo's start", "America/Sao_Paulo")).toEqual(["America/Sao_Paulo 2026-11-04 21 1"]);
    expect(await hourOf("at São Paulo's start", "UTC")).toEqual(["UTC 2026-11-05 0 1"]);
  });

  it("put each credited order on its local day and hour in every zone", async () => {
    const expected = (hourly: boolean) =>
      EVERY.flatMap((zone) => ORDER_TIMES.map((at) => `${zone} ${localDay(at, zone)}${hourly ? ` ${localHour(at, zone)}` : ""}`))
        .reduce((counts, key) => counts.set(key, (counts.get(key) ?? 0) + 1), new Map<string, number>())
        .entries();
    const asCells = (hourly: boolean) => [...expected(hourly)].map(([key, n]) => `${key} ${n}`).sort();
    // The clicks' own rows (the 9th) hold no order.
    const daily = (await cells("daily_campaign_totals", ordersCampaign, "conversions")).filter((c) => !c.endsWith(" 0"));
    expect(daily).toEqual(asCells(false));
    expect((await cells("hourly_campaign_totals", ordersCampaign, "conversions")).filter((c) => !c.endsWith(" 0"))).toEqual(asCells(true));
    const { rows } = await pgPool().query<{ cell: string }>(
      `SELECT zone || ' ' || day::text || ' ' || hour || ' ' || conversions AS cell FROM hourly_publisher_orders WHERE advertiser_id = '' ORDER BY 1`,
    );
    expect(rows.map((r) => r.cell)).toEqual(asCells(true));
    // Kathmandu: one order 1 ms before its midnight of the 12th, one at it.
    expect(daily.filter((c) => c.startsWith("Asia/Kathmandu"))).toEqual(["Asia/Kathmandu 2026-11-11 1", "Asia/Kathmandu 2026-11-12 3"]);
  });

  it("add each day's hourly cells up to the day's row, and a local week to the week's events", async () => {
    const sums = MEASURES.map((m) => `coalesce(h.${m}, 0) <> coalesce(d.${m}, 0)`).join(" OR ");
    const { rows: campaigns } = await pgPool().query(`
      SELECT zone, day::text, campaign_id FROM daily_campaign_totals d
        FULL JOIN (SELECT zone, day, publisher_id, advertiser_id, campaign_id, ${MEASURES.map((m) => `sum(${m}) AS ${m}`).join(", ")}
                     FROM hourly_campaign_totals GROUP BY 1, 2, 3, 4, 5) h USING (zone, day, publisher_id, advertiser_id, campaign_id)
       WHERE ${sums}`);
    expect(campaigns).toEqual([]);
    const { rows: orders } = await pgPool().query(`
      SELECT zone, day::text FROM daily_publisher_orders d
        FULL JOIN (SELECT zone, day, publisher_id, advertiser_id, ${ORDER_MEASURES.map((m) => `sum(${m}) AS ${m}`).join(", ")}
                     FROM hourly_publisher_orders GROUP BY 1, 2, 3, 4) h USING (zone, day, publisher_id, advertiser_id)
       WHERE ${ORDER_MEASURES.map((m) => `coalesce(h.${m}, 0) <> coalesce(d.${m}, 0)`).join(" OR ")}`);
    expect(orders).toEqual([]);
    const { rows: filled } = await pgPool().query("SELECT count(*)::int AS n FROM hourly_publisher_orders");
    expect(filled[0].n).toBeGreaterThan(0);

    // The local week Monday 9 to Sunday 15 November in each zone, counted from the moments above.
    const [monday, sunday] = ["2026-11-09", addDays("2026-11-09", 6)];
    const weekCounts = new Map<string, { impressions: number; clicks: number }>();
    for (const zone of EVERY) {
      const inWeek = WEEK_TRAFFIC.filter(({ at }) => localDay(at, zone) >= monday && localDay(at, zone) <= sunday);
      weekCounts.set(zone, { impressions: inWeek.filter((e) => e.kind === "impression").length, clicks: inWeek.filter((e) => e.kind === "click").length });
    }
    // Zones far apart see different weeks of the same traffic.
    expect(weekCounts.get("Australia/Lord_Howe")).not.toEqual(weekCounts.get("America/New_York"));
    for (const table of ["daily_campaign_totals", "hourly_campaign_totals"]) {
      const { rows } = await pgPool().query<{ zone: string; impressions: number; clicks: number }>(
        `SELECT zone, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks FROM ${table}
          WHERE campaign_id = $1 AND day BETWEEN $2 AND $3 GROUP BY zone ORDER BY zone`,
        [weekCampaign, monday, sunday],
      );
      expect(new Map(rows.map(({ zone, impressions, clicks }) => [zone, { impressions, clicks }])), table).toEqual(weekCounts);
    }
  });

  it("leave nothing for the check to correct", async () => {
    expect(await verifyRollups("2026-03-01", "2026-11-30")).toEqual([]);
  });

  it("hold the advertiser's hours as the migrations that added them fill them from the campaigns' hours and the orders", async () => {
    const everyRow = "SELECT t::text AS row FROM hourly_advertiser_totals t ORDER BY t::text";
    const written = (await pgPool().query<{ row: string }>(everyRow)).rows.map((r) => r.row);
    expect(written.length).toBeGreaterThan(0);
    // The writers' rows over every publisher (publisher_id '') as well as each publisher's.
    const overPublishers = await pgPool().query("SELECT 1 FROM hourly_advertiser_totals WHERE publisher_id = ''");
    expect(overPublishers.rowCount).toBeGreaterThan(0);
    expect(overPublishers.rowCount).toBeLessThan(written.length);
    const fillOf = (folder: string) => {
      const migration = readFileSync(`prisma/migrations/${folder}/migration.sql`, "utf8");
      const from = migration.indexOf('INSERT INTO "hourly_advertiser_totals"');
      const to = migration.indexOf("DROP INDEX", from);
      return migration.slice(from, to === -1 ? undefined : to);
    };
    await pgPool().query("DELETE FROM hourly_advertiser_totals");
    // The table's first fill (publishers' rows), then the rows over every publisher from those.
    await pgPool().query(fillOf("20261208000300_hourly_advertiser_totals"));
    await pgPool().query(fillOf("20261210000100_hours_over_publishers"));
    expect((await pgPool().query<{ row: string }>(everyRow)).rows.map((r) => r.row)).toEqual(written);
  });
});
