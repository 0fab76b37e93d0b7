// A zone's backfill step while the writers go on: events and an order of the very day the step
// recounts settle and are attributed by the real writers (their own connections) after the
// step's snapshot and before it moves the start. Each is counted once in every zone, the reports
// read no half-added day meanwhile, and the rows equal a recount of the raw rows after.
import { createHash, randomUUID } from "node:crypto";
import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { localDay } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { store } from "@/server/store";
import { zonedDays } from "@/server/store/postgres/report-zone.sql";
import { rebuildRollups, verifyRollups } from "@/server/store/postgres/verify-rollups.sql";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, type ServedTarget, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettleConversion, settleAll } from "@/testing/settle";
import { rowsOf } from "@/testing/zone-rows";

const SAO_PAULO = "America/Sao_Paulo";

const keysLeft = async () =>
  (
    await pgPool().query<{ n: number }>(
      "SELECT ((SELECT count(*) FROM daily_campaign_totals WHERE zone LIKE '%:%') + (SELECT count(*) FROM hourly_campaign_totals WHERE zone LIKE '%:%'))::int AS n",
    )
  ).rows[0]!.n;

let served: ServedTarget;
let sku: string;
const impressions: Date[] = [];
const clicks: Date[] = [];

async function settleBeacons(beacons: readonly (readonly [EventKind, string, string])[]): Promise<void> {
  for (const [kind, session, at] of beacons) {
    await recordBeacon({
      claims: servedClaims(served, session, { kind, at: new Date(at) }),
      body: { session_id: session, user_id: `user-${session}` },
      userAgent: CHROME,
      now: new Date(at),
    });
    (kind === "click" ? clicks : impressions).push(new Date(at));
  }
  const settled = await settleAll();
  expect(settled.counted).toBe(beacons.length);
}

/** Impressions (or clicks) of the campaign per local day of `zone` among `moments` from `since` on: Intl's days, not Postgres's. */
function perLocalDay(moments: readonly Date[], zone: string, since: Date): Record<string, number> {
  const days: Record<string, number> = {};
  for (const at of moments) if (at >= since) days[localDay(at, zone)] = (days[localDay(at, zone)] ?? 0) + 1;
  return days;
}

async function storedPerDay(zone: string, measure: "impressions" | "clicks" | "conversions" | "converted_clicks"): Promise<Record<string, number>> {
  const { rows } = await pgPool().query<{ day: string; n: number }>(
    `SELECT day::text, sum(${measure})::int AS n FROM daily_campaign_totals WHERE zone = $1 AND campaign_id = $2 GROUP BY day HAVING sum(${measure}) > 0 ORDER BY day`,
    [zone, served.campaign.id],
  );
  return Object.fromEntries(rows.map((r) => [r.day, r.n]));
}

describe("a zone's backfill step while settling and attribution go on", () => {
  beforeAll(async () => {
    const publisher = await makePublisher({ creditUnverified: true });
    const advertiser = await makeAdvertiser();
    sku = `SKU-${randomUUID()}`;
    const { campaign, ad } = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      bidModel: "cpm",
      bid: 8,
      products: [{ sku, name: "Kettle" }],
    });
    served = { ad, campaign, publisher };
    // São Paulo (UTC−3) kept from the 23rd: its local 22nd is then its seam day, 21:00 to midnight its own.
    await pgPool().query("INSERT INTO report_zones (zone, since, hours_since) VALUES ($1, '2026-11-23T00:00:00Z', '2026-11-23T00:00:00Z')", [SAO_PAULO]);
    await settleBeacons([
      ["impression", "a", "2026-11-22T02:59:59.999Z"], // São Paulo 23:59:59.999 on the 21st
      ["impression", "b", "2026-11-22T03:00:00Z"], // its midnight of the 22nd
      ["click", "u", "2026-11-22T10:00:00Z"],
      ["impression", "c", "2026-11-23T01:00:00Z"], // after the start: the 22nd at 22:00, in São Paulo's rows already
    ]);
  });

  it("counts what settles and is attributed during the recount once, reads no half-added day meanwhile, and equals a recount after", async () => {
    let inWindow = false;
    const whileRecounting = async () => {
      // Late events of the day being recounted, one on the seam day, and an order of that day
      // that converts the earlier click: the real writers, after the step's snapshot.
      await settleBeacons([
        ["impression", "late-1", "2026-11-22T01:00:00Z"],
        ["impression", "late-2", "2026-11-22T20:00:00Z"],
        ["impression", "late-3", "2026-11-22T23:30:00Z"], // São Paulo 20:30 on the 22nd, the seam day
        ["click", "late-4", "2026-11-22T12:00:00Z"],
      ]);
      await recordAndSettleConversion(
        {
          publisher_id: served.publisher.id,
          user_id: "user-u",
          session_id: "u",
          order_id: `o-${randomUUID()}`,
          created_at: "2026-11-22T15:00:00Z",
          channel: "online store",
          email_hashed: createHash("sha256").update("u@example.com").digest("hex"),
          items: [{ sku, quantity: 1, price: 10, promotional_price: 10 }],
        },
        new Date("2026-11-22T15:01:00Z"),
      );
      expect((await attributePendingConversions({ settleMs: 0 })).attributedOrders).toBe(1);
      // The writers kept them apart, under the step's key, not in São Paulo's rows.
      const { rows } = await pgPool().query<{ impressions: number; conversions: number }>(
        "SELECT sum(impressions)::int AS impressions, sum(conversions)::int AS conversions FROM daily_campaign_totals WHERE zone = $1",
        [`backfill:${SAO_PAULO}`],
      );
      expect(rows[0]).toEqual({ impressions: 3, conversions: 1 });
      // A report of São Paulo's 22nd reads its own rows from 21:00 (the start) and the UTC 22nd:
      // every impression of the UTC 22nd and the one after the start, nothing twice.
      const range = { startDate: "2026-11-22", endDate: "2026-11-22", zone: SAO_PAULO };
      const { rows: read } = await pgPool().query<{ n: number }>(
        sql`SELECT sum(impressions)::int AS n FROM daily_campaign_totals r WHERE r.campaign_id = ${served.campaign.id} AND ${zonedDays("r", range)}`,
      );
      const utc22nd = impressions.filter((at) => at.toISOString().startsWith("2026-11-22")).length;
      expect(read[0]!.n).toBe(utc22nd + 1);
      expect(await verifyRollups("2026-11-20", "2026-11-25")).toEqual([]);
      inWindow = true;
    };
    const stretch = await store().rollups.zoneBackfill.step(SAO_PAULO, "days", 30_000, { whileRecounting });
    expect(inWindow).toBe(true);
    expect(stretch).toEqual({ zone: SAO_PAULO, grain: "days", from: new Date("2026-11-22T00:00:00Z"), to: new Date("2026-11-23T00:00:00Z") });

    // The hours too, with one more late impression while they are recounted.
    const hours = await store().rollups.zoneBackfill.step(SAO_PAULO, "hours", 30_000, {
      whileRecounting: () => settleBeacons([["impression", "late-5", "2026-11-22T18:00:00Z"]]),
    });
    expect(hours?.from).toEqual(new Date("2026-11-22T00:00:00Z"));
    const { rows: zoneRow } = await pgPool().query("SELECT since, hours_since, backfill_since, backfill_hours_since FROM report_zones WHERE zone = $1", [
      SAO_PAULO,
    ]);
    expect(zoneRow[0]).toEqual({
      since: new Date("2026-11-22T00:00:00Z"),
      hours_since: new Date("2026-11-22T00:00:00Z"),
      backfill_since: null,
      backfill_hours_since: null,
    });
    expect(await keysLeft()).toBe(0);

    // Every figure of every zone is a recount's, and São Paulo's days are Intl's days of the events.
    expect(await verifyRollups("2026-11-20", "2026-11-25")).toEqual([]);
    const since = new Date("2026-11-22T00:00:00Z");
    expect(await storedPerDay(SAO_PAULO, "impressions")).toEqual(perLocalDay(impressions, SAO_PAULO, since));
    expect(await storedPerDay(SAO_PAULO, "clicks")).toEqual(perLocalDay(clicks, SAO_PAULO, since));
    expect(await storedPerDay(SAO_PAULO, "conversions")).toEqual({ "2026-11-22": 1 });
    expect(await storedPerDay(SAO_PAULO, "converted_clicks")).toEqual({ "2026-11-22": 1 });
    const { rows: hourly } = await pgPool().query<{ n: number }>("SELECT sum(impressions)::int AS n FROM hourly_campaign_totals WHERE zone = $1", [SAO_PAULO]);
    expect(hourly[0]!.n).toBe(impressions.filter((at) => at >= since).length);
    const stepped = { saoPaulo: await rowsOf(SAO_PAULO), utc: await rowsOf("UTC") };
    await rebuildRollups("2026-11-20", "2026-11-25");
    expect({ saoPaulo: await rowsOf(SAO_PAULO), utc: await rowsOf("UTC") }).toEqual(stepped);
  });

  it("drops a step's marks and rows when it fails part-way, and the next step starts afresh", async () => {
    // A held day before São Paulo's start, so there is a day to take.
    await settleBeacons([["impression", "early", "2026-11-21T06:00:00Z"]]);
    await expect(
      store().rollups.zoneBackfill.step(SAO_PAULO, "days", 30_000, {
        whileRecounting: async () => {
          await settleBeacons([["impression", "lost-step", "2026-11-21T12:00:00Z"]]);
          throw new Error("the step's process stopped");
        },
      }),
    ).rejects.toThrow("stopped");
    const { rows } = await pgPool().query("SELECT since, backfill_since FROM report_zones WHERE zone = $1", [SAO_PAULO]);
    expect(rows[0]).toEqual({ since: new Date("2026-11-22T00:00:00Z"), backfill_since: null });
    expect(await keysLeft()).toBe(0);
    expect(await verifyRollups("2026-11-20", "2026-11-25")).toEqual([]);
    // The next step takes the day, the impression written meanwhile included.
    expect((await store().rollups.zoneBackfill.step(SAO_PAULO, "days", 30_000))?.from).toEqual(new Date("2026-11-21T00:00:00Z"));
    expect(await verifyRollups("2026-11-19", "2026-11-25")).toEqual([]);
    expect(await storedPerDay(SAO_PAULO, "impressions")).toEqual(perLocalDay(impressions, SAO_PAULO, new Date("2026-11-21T00:00:00Z")));
  });
});
