// What one source can make Tally store, and what it costs Tally to decide what it sent: orders per
// session and day, beacons per token and per session and hour, each publisher's storage per day,
// retention of what was set aside, and look-ups whose cost does not grow with a session's history.
// Low allowances for this file only: the env module reads them on first use.
process.env.TALLY_ORDERS_PER_SESSION_PER_DAY = "3";
process.env.TALLY_BEACONS_PER_TOKEN_PER_HOUR = "5";
process.env.TALLY_BEACONS_PER_SESSION_PER_HOUR = "8";
process.env.TALLY_SET_ASIDE_RETENTION_DAYS = "30";

import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { DAY_MS, utcDay } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { resetBeaconAllowances } from "@/server/pipeline/accept/beacons/beacon-allowances";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { setAsideOrders } from "@/server/pipeline/attribute/set-aside-orders";
import { trafficLimits } from "@/server/pipeline/settle/traffic-rules";
import { historySql } from "@/server/store/postgres/settle-beacons.sql";
import { alertThresholds, lagProblems, readLags } from "@/server/upkeep/lags.sql";
import { upkeep } from "@/server/upkeep/upkeep";
import { beaconToAppend, CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";

afterAll(() => {
  for (const name of [
    "TALLY_ORDERS_PER_SESSION_PER_DAY",
    "TALLY_BEACONS_PER_TOKEN_PER_HOUR",
    "TALLY_BEACONS_PER_SESSION_PER_HOUR",
    "TALLY_SET_ASIDE_RETENTION_DAYS",
  ])
    delete process.env[name];
  resetBeaconAllowances();
});

async function fixture() {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 100 });
  const sku = `BEANS-${randomUUID()}`;
  const made = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], products: [{ sku, name: "Beans" }] });
  return { publisher, advertiser, sku, ...made };
}

const order = (publisherId: string, sku: string, session: string) => ({
  publisher_id: publisherId,
  user_id: `u-${session}`,
  session_id: session,
  order_id: `o-${randomUUID()}`,
  created_at: new Date().toISOString(),
  channel: "web",
  email_hashed: "c".repeat(64),
  items: [{ sku, quantity: 1, price: 3, promotional_price: 3 }],
});

const statusOf = (work: Promise<unknown>) =>
  work.then(
    () => 202,
    (error: unknown) => (error instanceof TallyError && error.code === "too_many_requests" ? 429 : String(error)),
  );

describe("orders per session", () => {
  it("stores a session's first orders of the day and sets the rest aside by rule, with their publisher and order id; another session is untouched", async () => {
    const f = await fixture();
    const busy = `busy-${randomUUID()}`;
    const orders = Array.from({ length: 5 }, () => order(f.publisher.id, f.sku, busy));
    const calm = order(f.publisher.id, f.sku, `calm-${randomUUID()}`);
    for (const body of [...orders.slice(0, 2), calm]) await recordConversion(body);
    await settleAll();
    for (const body of orders.slice(2)) await recordConversion(body);
    const done = await settleAll();
    expect(done).toMatchObject({ orders: 1, setAside: 2 });
    const stored = await db.conversion.findMany({ where: { publisherId: f.publisher.id }, select: { orderId: true } });
    expect(stored.map((c) => c.orderId).sort()).toEqual([...orders.slice(0, 3), calm].map((o) => o.order_id).sort());
    const { rows } = await pgPool().query<{ order_id: string; publisher_id: string; rule: string; reason: string }>(
      "SELECT order_id, publisher_id, rule, reason FROM settle_set_aside WHERE publisher_id = $1 ORDER BY order_id",
      [f.publisher.id],
    );
    expect(rows.map((r) => r.order_id)).toEqual(
      orders
        .slice(3)
        .map((o) => o.order_id)
        .sort(),
    );
    expect(rows.every((r) => r.rule === "orders_per_session" && /already placed 3 orders/.test(r.reason))).toBe(true);
    // The publisher's dashboard lists them with the orders attribution set aside.
    const listed = await setAsideOrders({ startDate: utcDay(), endDate: utcDay() }, [f.publisher.id]);
    expect(listed.total).toBe(2);
    expect(listed.latest.map((o) => [o.order_id, o.rule]).sort()).toEqual(rows.map((r) => [r.order_id, "orders_per_session"]));
    const { rows: intake } = await pgPool().query<{ orders: string; set_aside: string; bytes: string }>(
      "SELECT sum(orders)::text AS orders, sum(set_aside)::text AS set_aside, sum(bytes)::text AS bytes FROM publisher_daily_intake WHERE publisher_id = $1",
      [f.publisher.id],
    );
    expect(intake[0]).toMatchObject({ orders: "4", set_aside: "2" });
    expect(Number(intake[0]!.bytes)).toBeGreaterThan(4 * 200);
  });

  it("counts within one stretch too: orders of one session settled together past the allowance are set aside in their order", async () => {
    const f = await fixture();
    const session = `burst-${randomUUID()}`;
    const orders = Array.from({ length: 5 }, () => order(f.publisher.id, f.sku, session));
    for (const body of orders) await recordConversion(body);
    await settleAll();
    const stored = await db.conversion.findMany({ where: { publisherId: f.publisher.id }, select: { orderId: true } });
    expect(stored.map((c) => c.orderId).sort()).toEqual(
      orders
        .slice(0, 3)
        .map((o) => o.order_id)
        .sort(),
    );
  });
});

describe("beacon allowances", () => {
  it("refuse a token past its hourly allowance with 429, and a session past its own across tokens, storing nothing refused", async () => {
    resetBeaconAllowances();
    const f = await fixture();
    const session = `s-${randomUUID()}`;
    const claims = servedClaims(f, session, { kind: "click" });
    const replayed = [];
    for (let i = 0; i < 7; i++) replayed.push(await statusOf(recordBeacon({ claims, body: { session_id: session }, userAgent: CHROME })));
    expect(replayed).toEqual([202, 202, 202, 202, 202, 429, 429]);
    // The session has brought 5; its allowance is 8, whatever the tokens.
    const fresh = [];
    for (let i = 0; i < 5; i++) {
      fresh.push(await statusOf(recordBeacon({ claims: servedClaims(f, session), body: { session_id: session }, userAgent: CHROME })));
    }
    expect(fresh).toEqual([202, 202, 202, 429, 429]);
    await settleAll();
    expect(await db.adEvent.count({ where: { sessionId: session } })).toBe(8);
  });
});

describe("settling a beacon", () => {
  /** Shared buffers the look-ups of one beacon of `session` read (EXPLAIN ANALYZE): the work, counted without a clock. */
  async function buffersToDecide(f: Awaited<ReturnType<typeof fixture>>, session: string): Promise<number> {
    const beacon = beaconToAppend(f, session);
    const logged = { ...beacon, acceptedXid: "1", seq: "1", receivedAt: new Date(), createdAt: new Date(), claims: beacon.claims };
    const client = await pgPool().connect();
    try {
      await client.query("ANALYZE ad_events");
      const history = historySql([logged], trafficLimits());
      const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: { "Shared Hit Blocks": number; "Shared Read Blocks": number } }] }>({
        text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${history.text}`,
        values: history.values,
      });
      const plan = rows[0]!["QUERY PLAN"][0].Plan;
      return plan["Shared Hit Blocks"] + plan["Shared Read Blocks"];
    } finally {
      client.release();
    }
  }

  it("reads as little for a session with 20,000 earlier events of the same ad (duplicates and a counted one a quarter hour) as for a fresh one", async () => {
    const f = await fixture();
    const fresh = await buffersToDecide(f, `fresh-${randomUUID()}`);
    const replayed = `replayed-${randomUUID()}`;
    // A token replayed for hours: what settling stored of it, with a counted impression every
    // fifteen minutes from other tokens of the same ad, none inside the de-duplication window.
    await pgPool().query(
      `INSERT INTO ad_events (event_id, kind, status, session_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id,
                              ad_type, placement_name, context, site, created_at)
       SELECT gen_random_uuid(), 'impression', (CASE WHEN g % 900 = 0 THEN 'counted' ELSE 'duplicate' END)::"EventStatus", $1, $2, $3, $4, $5,
              CASE WHEN g % 900 = 0 THEN 'req-' || g ELSE 'replayed-token' END, 'banner', 'home', 'home', $6, now() - make_interval(secs => 120 + g)
         FROM generate_series(1, 20000) AS g`,
      [replayed, f.ad.id, f.campaign.id, f.advertiser.id, f.publisher.id, f.publisher.sites[0]!.name],
    );
    const withHistory = await buffersToDecide(f, replayed);
    expect(withHistory).toBeLessThanOrEqual(fresh + 4);
  });
});

describe("what Tally stores per publisher", () => {
  it("is kept per day as beacons and orders settle, shown by size in the lags, and past the alert threshold makes health degraded", async () => {
    const f = await fixture();
    const sessions = Array.from({ length: 4 }, () => `s-${randomUUID()}`);
    for (const session of sessions) await recordBeacon({ claims: servedClaims(f, session), body: { session_id: session }, userAgent: CHROME });
    await recordConversion(order(f.publisher.id, f.sku, sessions[0]!));
    await settleAll();
    const lags = await readLags();
    const mine = lags.publisherStorage.find((p) => p.publisherId === f.publisher.id);
    expect(mine).toMatchObject({ beacons: 4, orders: 1, setAside: 0 });
    expect(mine!.bytes).toBeGreaterThan(4 * 100);
    expect(lagProblems(lags)).toEqual([]);
    const tight = { ...alertThresholds(), publisherDailyBytes: 100 };
    expect(lagProblems(lags, tight)).toContainEqual(expect.stringMatching(new RegExp(`^publisher ${f.publisher.id} stored 0 MB today`)));
  });
});

describe("retention of what was set aside", () => {
  it("deletes set-aside records and orders attribution set aside once past TALLY_SET_ASIDE_RETENTION_DAYS, and keeps the recent ones", async () => {
    const f = await fixture();
    const now = new Date();
    const old = new Date(now.getTime() - 31 * DAY_MS);
    const recentRecord = randomUUID();
    const oldRecord = randomUUID();
    await pgPool().query(
      `INSERT INTO settle_set_aside (event_id, kind, received_at, reason, set_aside_at) VALUES ($1, 'beacon', $3, 'x', $3), ($2, 'beacon', $4, 'x', $4)`,
      [oldRecord, recentRecord, old, now],
    );
    const oldOrder = await recordConversion({ ...order(f.publisher.id, f.sku, `s-${randomUUID()}`), created_at: old.toISOString() }, old);
    const recentOrder = await recordConversion(order(f.publisher.id, f.sku, `s-${randomUUID()}`));
    await settleAll();
    await pgPool().query("UPDATE conversions SET attributed_at = now(), attribution_failed_reason = 'x' WHERE event_id = ANY($1::uuid[])", [
      [oldOrder.eventId, recentOrder.eventId],
    ]);
    const done = await upkeep(now);
    expect(done.setAsideDeleted.records).toBeGreaterThanOrEqual(1);
    expect(done.setAsideDeleted.orders).toBeGreaterThanOrEqual(1);
    const { rows } = await pgPool().query<{ event_id: string }>("SELECT event_id::text FROM settle_set_aside WHERE event_id = ANY($1::uuid[])", [
      [oldRecord, recentRecord],
    ]);
    expect(rows.map((r) => r.event_id)).toEqual([recentRecord]);
    const orders = await db.conversion.findMany({ where: { eventId: { in: [oldOrder.eventId, recentOrder.eventId] } }, select: { eventId: true } });
    expect(orders.map((o) => o.eventId)).toEqual([recentOrder.eventId]);
    expect(utcDay(old)).not.toBe(utcDay(now));
  });
});
