// A bad item never takes good ones with it: the beacon and conversion group commits, the settle
// step and the attribution batch, against the real database, with items whose own data Postgres refuses
// (values that got past validation: written by an older version, by hand, or by a bug).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { orderToAppend } from "@/server/pipeline/accept/conversions/append-conversions.sql";
import { updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { conversionWriter, recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { LARGEST_ORDER_TOTAL } from "@/server/pipeline/accept/conversions/trust-input";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { setAsideOrders } from "@/server/pipeline/attribute/set-aside-orders";
import { setAsideEvents } from "@/server/pipeline/settle/set-aside-events";
import { beaconToAppend, CHROME } from "@/testing/beacon-log";
import { makeProductCampaign, today } from "@/testing/fixtures";
import { outcomeOf, recordAndSettle, recordAndSettleConversion, settleAll } from "@/testing/settle";
import { appendBeaconBatch } from "./append-beacons.sql";
import { type BeaconClaims, sessionHashOf } from "./beacon-token";
import { RejectedItem } from "./group-commit";
import { beaconWriter } from "./record-beacon";

const fixture = () => makeProductCampaign();

function claimsFor(f: Awaited<ReturnType<typeof fixture>>, sessionId: string, kind: BeaconClaims["kind"] = "click"): BeaconClaims {
  return {
    kind,
    requestId: randomUUID(),
    adId: f.ad.id,
    campaignId: f.campaign.id,
    advertiserId: f.advertiser.id,
    publisherId: f.publisher.id,
    site: f.publisher.sites[0]!.name,
    placementName: "search",
    context: "search",
    adType: f.ad.type,
    adSize: f.ad.size,
    searchTerm: null,
    category: null,
    issuedAt: Math.floor(Date.now() / 1000),
    sessionHash: sessionHashOf(sessionId),
  };
}

describe("a bad item in a batch", () => {
  it("beacons: the one whose data Postgres refuses gets its own error, the other 40 of its batch are accepted and settled", async () => {
    const f = await fixture();
    const beacon = (sessionId: string) => beaconToAppend(f, sessionId, { shard: 0 });
    const sessions = Array.from({ length: 41 }, (_, i) => (i === 17 ? "poison\u0000session" : `good-${i}`));
    // Submitted in one turn of the event loop: one batch.
    const outcomes = await Promise.allSettled(sessions.map((session) => beaconWriter().submit(beacon(session))));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(40);
    const refused = outcomes[17]!;
    expect(refused.status).toBe("rejected");
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(RejectedItem);
    expect(((refused as PromiseRejectedResult).reason as RejectedItem).cause).toMatchObject({ code: "22021" });
    await settleAll();
    const stored = await db.adEvent.findMany({ where: { adId: f.ad.id }, select: { sessionId: true, status: true } });
    expect(stored.map((e) => e.sessionId).sort()).toEqual(sessions.filter((s) => s.startsWith("good")).sort());
    expect(stored.every((e) => e.status === "counted")).toBe(true);
    // The rollups hold exactly what was stored.
    const totals = await db.dailyCampaignTotal.findMany({ where: { campaignId: f.campaign.id } });
    expect(totals.reduce((n, r) => n + r.impressions, 0n)).toBe(40n);
  });

  it("settle: an event whose data cannot be settled is set aside with its reason, the rest of its stretch is settled, and the shard moves on", async () => {
    const full = await fixture();
    const other = await fixture();
    // A day whose spend already sits at the top of a bigint: one more click of this campaign overflows its rollups.
    await recordAndSettle({ claims: claimsFor(full, "first"), body: { session_id: "first" }, userAgent: CHROME });
    for (const table of ["daily_rollups", "daily_campaign_totals", "daily_ad_totals"]) {
      await pgPool().query(`UPDATE ${table} SET spend_micros = $2 WHERE campaign_id = $1`, [full.campaign.id, String(2n ** 63n - 1n)]);
    }
    const click = (f: typeof full, sessionId: string) => beaconToAppend(f, sessionId, { kind: "click", shard: 5 });
    // One stretch of one shard: the overflowing click among four good ones.
    const stretch = [click(other, "o-1"), click(other, "o-2"), click(full, "overflow"), click(other, "o-3"), click(other, "o-4")];
    await appendBeaconBatch(stretch);
    const done = await settleAll();
    expect(done.setAside).toBe(1);
    const outcomes = await Promise.all(stretch.map((event) => outcomeOf(event.eventId)));
    expect(outcomes.map((o) => o.status)).toEqual(["counted", "counted", "set_aside", "counted", "counted"]);
    const { rows } = await pgPool().query<{ sqlstate: string; reason: string }>("SELECT sqlstate, reason FROM settle_set_aside WHERE event_id = $1", [
      stretch[2]!.eventId,
    ]);
    expect(rows[0]).toMatchObject({ sqlstate: "22003" });
    expect(rows[0]!.reason).toMatch(/out of range/);
    // The shard is not held: a later event of it settles.
    const later = click(other, "o-5");
    await appendBeaconBatch([later]);
    await settleAll();
    expect((await outcomeOf(later.eventId)).status).toBe("counted");
  });

  it("conversions: the order whose data Postgres refuses gets its own error, the other orders of its batch are accepted and settled", async () => {
    const f = await fixture();
    const order = (orderId: string) => ({
      event_id: randomUUID(),
      publisher_id: f.publisher.id,
      order_id: orderId,
      user_id: "u",
      session_id: "s",
      channel: "web",
      site: f.publisher.sites[0]!.name,
      placed_at: new Date(),
      gender: null,
      uf: null,
      city: null,
      is_company: null,
      email_hashed: "a".repeat(64),
      phone_hashed: null,
      social_id_hashed: null,
      first_name_hashed: null,
      last_name_hashed: null,
      received_at: null,
      items: [{ sku: f.sku, product_id: null, seller_id: null, quantity: 1, price_micros: 1, promotional_price_micros: 1 }],
      verified_by: null,
      total_micros: "1",
    });
    const ids = Array.from({ length: 12 }, (_, i) => (i === 4 ? "lone \ud800 surrogate" : `order-${randomUUID()}`));
    const outcomes = await Promise.allSettled(ids.map((id) => conversionWriter().submit(orderToAppend(order(id)))));
    expect(outcomes.map((o) => o.status)).toEqual(ids.map((_, i) => (i === 4 ? "rejected" : "fulfilled")));
    expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(RejectedItem);
    await settleAll();
    const stored = await db.conversion.findMany({ where: { publisherId: f.publisher.id }, select: { orderId: true } });
    expect(stored.map((c) => c.orderId).sort()).toEqual(ids.filter((_, i) => i !== 4).sort());
  });

  it("settling orders: one whose logged data cannot be stored is set aside with its reason, the orders around it are stored", async () => {
    const f = await fixture();
    const good = (n: number) => ({
      publisher_id: f.publisher.id,
      user_id: "u",
      session_id: "s",
      order_id: `settle-${n}-${randomUUID()}`,
      created_at: new Date().toISOString(),
      channel: "web",
      email_hashed: "c".repeat(64),
      items: [{ sku: f.sku, quantity: 1, price: 3, promotional_price: 3 }],
    });
    const before = await recordConversion(good(1));
    // An order as an older version or an operator might have logged it: no order_id.
    const broken = randomUUID();
    await pgPool().query(
      `INSERT INTO conversion_log (event_id, conversion)
       SELECT $1::uuid, conversion - 'order_id' || jsonb_build_object('event_id', $1::text) FROM conversion_log WHERE event_id = $2::uuid`,
      [broken, before.eventId],
    );
    const after = await recordConversion(good(2));
    const done = await settleAll();
    expect(done).toMatchObject({ orders: 2, setAside: 1 });
    const stored = await db.conversion.findMany({ where: { eventId: { in: [before.eventId, after.eventId, broken] } }, select: { eventId: true } });
    expect(stored.map((c) => c.eventId).sort()).toEqual([before.eventId, after.eventId].sort());
    const { rows } = await pgPool().query("SELECT kind, shard, sqlstate FROM settle_set_aside WHERE event_id = $1", [broken]);
    expect(rows).toEqual([{ kind: "conversion", shard: null, sqlstate: "23502" }]);
    // Operators see it where rollups:verify lists what the jobs set aside.
    const listed = await setAsideEvents({ startDate: today(), endDate: today() });
    expect(listed.latest.find((e) => e.event_id === broken)).toMatchObject({ kind: "conversion", sqlstate: "23502" });
  });

  it("attribution: an order whose lines overflow is set aside with its reason, every other order is attributed, and the queue moves on", async () => {
    const f = await fixture();
    const shoppers = Array.from({ length: 9 }, (_, i) => ({ session: `buyer-${i}-${randomUUID()}`, user: `user-${i}-${randomUUID()}` }));
    for (const shopper of shoppers) {
      await recordAndSettle({
        claims: claimsFor(f, shopper.session),
        body: { session_id: shopper.session, user_id: shopper.user },
        userAgent: CHROME,
        now: new Date(Date.now() - 3_600_000),
      });
    }
    const orders: string[] = [];
    for (const shopper of shoppers) {
      const orderId = `order-${randomUUID()}`;
      orders.push(orderId);
      await recordAndSettleConversion(
        {
          publisher_id: f.publisher.id,
          user_id: shopper.user,
          session_id: shopper.session,
          order_id: orderId,
          created_at: new Date(Date.now() - 60_000).toISOString(),
          channel: "web",
          email_hashed: "b".repeat(64),
          items: [{ sku: f.sku, quantity: 2, price: 5, promotional_price: 4 }],
        },
        new Date(Date.now() - 60_000),
      );
    }
    // The fifth order's line as an older version or an operator might have stored it: a quantity
    // whose total cannot be held in bigint micros.
    await pgPool().query(`UPDATE conversions SET items = jsonb_set(items, '{0,quantity}', '1e300') WHERE publisher_id = $1 AND order_id = $2`, [
      f.publisher.id,
      orders[4],
    ]);
    const done = await attributePendingConversions({ settleMs: 0, batchSize: 50 });
    expect(done).toMatchObject({ setAside: 1, attributedOrders: 8, items: 8 });
    expect(await db.conversion.count({ where: { publisherId: f.publisher.id, attributedAt: null } })).toBe(0);
    const attributed = await db.attribution.findMany({ where: { publisherId: f.publisher.id }, select: { orderId: true } });
    expect(attributed.map((a) => a.orderId).sort()).toEqual(orders.filter((_, i) => i !== 4).sort());
    const poisoned = await db.conversion.findFirstOrThrow({ where: { publisherId: f.publisher.id, orderId: orders[4] } });
    expect(poisoned.attributionFailedReason).toMatch(/out of range/);
    expect(poisoned.attributedAt).not.toBeNull();

    const listed = await setAsideOrders({ startDate: today(), endDate: today() }, [f.publisher.id]);
    expect(listed.total).toBe(1);
    expect(listed.latest[0]).toMatchObject({ publisher_id: f.publisher.id, order_id: orders[4] });
    expect(listed.latest[0]!.reason).toMatch(/out of range/);
    // Another publisher sees none of it.
    expect((await setAsideOrders({ startDate: today(), endDate: today() }, ["pub_nobody"])).total).toBe(0);
    // Nothing left to do: a second run takes no order.
    expect((await attributePendingConversions({ settleMs: 0 })).orders).toBe(0);
  });

  it("attribution: a day whose sales already pass what a bigint holds still takes the largest order, never wedging its campaign", async () => {
    const f = await fixture();
    const shopper = { session: `whale-${randomUUID()}`, user: `whale-${randomUUID()}` };
    await recordAndSettle({
      claims: claimsFor(f, shopper.session),
      body: { session_id: shopper.session, user_id: shopper.user },
      userAgent: CHROME,
      now: new Date(Date.now() - 3_600_000),
    });
    // A day that has already taken almost 2^63 micro-units of this campaign's sales.
    const nearTop = 9_223_372_036_000_000_000n;
    for (const table of ["daily_rollups", "daily_campaign_totals", "daily_ad_totals"]) {
      await pgPool().query(`UPDATE ${table} SET sales_revenue_micros = $2 WHERE campaign_id = $1`, [f.campaign.id, String(nearTop)]);
    }
    const orderId = `order-${randomUUID()}`;
    // A line past Tally's default plausibility limits: this publisher raised its own to the largest
    // there are, and credits its checkout's unsigned orders.
    await updateConversionTrust({
      actor: OPERATOR,
      publisherId: f.publisher.id,
      creditUnverified: true,
      maxOrderTotal: LARGEST_ORDER_TOTAL,
      maxLineQuantity: 10_000,
    });
    await recordAndSettleConversion(
      {
        publisher_id: f.publisher.id,
        user_id: shopper.user,
        session_id: shopper.session,
        order_id: orderId,
        created_at: new Date().toISOString(),
        channel: "web",
        email_hashed: "b".repeat(64),
        items: [{ sku: f.sku, quantity: 10_000, price: 1_000_000, promotional_price: 1_000_000 }],
      },
      new Date(Date.now() + 1000),
    );
    expect(await attributePendingConversions({ settleMs: 0, now: new Date(Date.now() + 2000) })).toMatchObject({ setAside: 0, attributedOrders: 1, items: 1 });
    const line = 10_000n * 1_000_000n * 1_000_000n;
    const { rows } = await pgPool().query<{ sales: string }>(
      "SELECT sum(sales_revenue_micros)::text AS sales FROM daily_campaign_totals WHERE campaign_id = $1",
      [f.campaign.id],
    );
    expect(BigInt(rows[0]!.sales)).toBe(nearTop + line);
    expect(BigInt(rows[0]!.sales) > 2n ** 63n).toBe(true);
  });
});
