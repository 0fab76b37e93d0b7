// Attacks on the pipeline behind the 202: a client that sends what is cheap to accept and costly to
// settle, attribute or keep. Each is reproduced as it was found, against the production build
// under `next start` and the collector; afterwards a legitimate click and a legitimate order sent
// after the attack are settled and attributed within 30 s, health and the cron routes answer 200,
// and storage grew by no more than the caps allow.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { closeSql, eventually, freshAddress, HOSTS, type Host, post, serve, settled, sql, stack } from "./client";
import { HOSTILE_ENV } from "./global-stack";

const EMAIL = "d".repeat(64);
/** The defaults the stack runs with (src/env.ts). */
const ORDER_MAX_BYTES = 128 * 1024;
const ORDERS_PER_SESSION_PER_DAY = 20;
const BEACONS_PER_TOKEN_PER_HOUR = 20;

interface Target {
  publisherId: string;
  sku: string;
}

async function target(): Promise<Target> {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  const sku = `PIPE-${randomUUID()}`;
  await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.1, products: [{ sku, name: "Beans" }] });
  return { publisherId: publisher.id, sku };
}

let legit: Target;
beforeAll(async () => {
  legit = await target();
});
afterAll(closeSql);

const order = (t: Target, shopper: { session: string; user: string }, items: unknown[]) => ({
  publisher_id: t.publisherId,
  user_id: shopper.user,
  session_id: shopper.session,
  order_id: `order-${randomUUID()}`,
  created_at: new Date().toISOString(),
  channel: "web",
  email_hashed: EMAIL,
  items,
});

/** `count` lines of `sku`, each padded with a product id so that the order weighs about `lineBytes` a line as stored. */
const lines = (sku: string, count: number, lineBytes: number) =>
  Array.from({ length: count }, (_, i) => ({
    sku,
    product_id: `${i}-`.padEnd(Math.max(1, lineBytes - 130 - sku.length), "p"),
    quantity: 1,
    price: 2,
    promotional_price: 2,
  }));

/** Sends `bodies` to alternate hosts, `parallel` at a time, each from a fresh address; the statuses in order. */
async function flood(url: (host: Host) => string, bodies: unknown[], parallel = 16): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < bodies.length; i += parallel) {
    const answers = await Promise.all(
      bodies.slice(i, i + parallel).map((body, j) => post(url(HOSTS[(i + j) % HOSTS.length]!), body, { address: freshAddress() })),
    );
    statuses.push(...answers.map((a) => a.status));
  }
  return statuses;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.nextUrl}${path}`, { headers });

/**
 * After an attack, at each host: a shopper's click and order go all the way (settled, attributed)
 * within 30 s; health and the cron routes answer 200, and the cron's settle step reports no failure.
 */
async function legitimateTrafficGoesThrough(): Promise<void> {
  for (const host of HOSTS) {
    const shopper = { session: `legit-${randomUUID()}`, user: `legit-${randomUUID()}` };
    const ad = await serve(host, legit.publisherId, shopper.session);
    expect((await post(ad.click_url, { session_id: shopper.session, user_id: shopper.user })).status).toBe(202);
    const body = order(legit, shopper, [{ sku: legit.sku, quantity: 1, price: 4, promotional_price: 4 }]);
    expect((await post(`${host.url}/v1/beacon/conversion`, body)).status).toBe(202);
    await eventually(
      `at ${host.name}: the click after the attack is settled and the order attributed to it`,
      async () =>
        (await sql("SELECT 1 FROM ad_events WHERE session_id = $1 AND status = 'counted'", [shopper.session])).length === 1 &&
        (await sql("SELECT 1 FROM attributions WHERE publisher_id = $1 AND order_id = $2", [legit.publisherId, body.order_id])).length === 1,
    );
  }
  expect((await get("/api/health")).status).toBe(200);
  const cron = { Authorization: `Bearer ${HOSTILE_ENV.CRON_SECRET}` };
  const settleCron = await get("/api/cron/settle", cron);
  expect(settleCron.status).toBe(200);
  expect(((await settleCron.json()) as { failed_steps: unknown[] }).failed_steps).toEqual([]);
  expect((await get("/api/cron/attribution", cron)).status).toBe(200);
}

/** Bytes, orders and set-aside orders the publisher's traffic stored today (publisher_daily_intake). */
async function intakeOf(publisherId: string): Promise<{ bytes: number; orders: number; beacons: number; setAside: number }> {
  const [row] = await sql<{ bytes: string | null; orders: string | null; beacons: string | null; set_aside: string | null }>(
    "SELECT sum(bytes)::text AS bytes, sum(orders)::text AS orders, sum(beacons)::text AS beacons, sum(set_aside)::text AS set_aside FROM publisher_daily_intake WHERE publisher_id = $1",
    [publisherId],
  );
  return { bytes: Number(row?.bytes ?? 0), orders: Number(row?.orders ?? 0), beacons: Number(row?.beacons ?? 0), setAside: Number(row?.set_aside ?? 0) };
}

describe("the pipeline under attack", { timeout: 300_000 }, () => {
  it("1: orders of 500 long lines past the size cap get a 422, orders just under it settle in bounded stretches, and settling goes on", async () => {
    const t = await target();
    const shopper = () => ({ session: `s-${randomUUID()}`, user: `u-${randomUUID()}` });
    // 261 KB each, under the 256 KiB body cap as sent, twice the size cap as stored.
    const oversized = Array.from({ length: 40 }, () => order(t, shopper(), lines(t.sku, 500, 575)));
    expect(JSON.stringify(oversized[0]).length).toBeGreaterThan(255_000);
    expect(JSON.stringify(oversized[0]).length).toBeLessThan(256 * 1024);
    const refused = await flood((host) => `${host.url}/v1/beacon/conversion`, oversized);
    expect(refused).toEqual(Array(40).fill(422));
    // Just under the cap: 200 orders of some 120 KB, each from its own session.
    const large = Array.from({ length: 200 }, () => order(t, shopper(), lines(t.sku, 500, 245)));
    const accepted = await flood((host) => `${host.url}/v1/beacon/conversion`, large);
    expect(count(accepted, 202)).toBe(200);
    await settled(60_000);
    const intake = await intakeOf(t.publisherId);
    expect(intake.orders).toBe(200);
    expect(intake.bytes).toBeLessThanOrEqual(200 * ORDER_MAX_BYTES);
    await legitimateTrafficGoesThrough();
  });

  it("2: 600 orders of 500 lines for one session with a counted click: its day's allowance is stored and attributed, the rest set aside, and attribution goes on", async () => {
    const t = await target();
    const shopper = { session: `hoarder-${randomUUID()}`, user: `hoarder-${randomUUID()}` };
    const ad = await serve(HOSTS[0]!, t.publisherId, shopper.session);
    expect((await post(ad.click_url, { session_id: shopper.session, user_id: shopper.user })).status).toBe(202);
    await settled();
    const orders = Array.from({ length: 600 }, () => order(t, shopper, lines(t.sku, 500, 94)));
    expect(JSON.stringify(orders[0]).length).toBeGreaterThan(45_000);
    const statuses = await flood((host) => `${host.url}/v1/beacon/conversion`, orders);
    expect(count(statuses, 202)).toBe(600);
    await settled(60_000);
    const stored = await sql<{ n: number }>("SELECT count(*)::int AS n FROM conversions WHERE publisher_id = $1 AND session_id = $2", [
      t.publisherId,
      shopper.session,
    ]);
    expect(stored[0]!.n).toBe(ORDERS_PER_SESSION_PER_DAY);
    const setAside = await sql<{ n: number }>("SELECT count(*)::int AS n FROM settle_set_aside WHERE publisher_id = $1 AND rule = 'orders_per_session'", [
      t.publisherId,
    ]);
    expect(setAside[0]!.n).toBe(600 - ORDERS_PER_SESSION_PER_DAY);
    await eventually(
      "the session's stored orders are attributed",
      async () =>
        (await sql("SELECT 1 FROM conversions WHERE publisher_id = $1 AND session_id = $2 AND attributed_at IS NULL", [t.publisherId, shopper.session]))
          .length === 0,
      60_000,
    );
    const attributed = await sql<{ n: number }>("SELECT count(*)::int AS n FROM attributions WHERE publisher_id = $1", [t.publisherId]);
    expect(attributed[0]!.n).toBeLessThanOrEqual(ORDERS_PER_SESSION_PER_DAY * 500);
    await legitimateTrafficGoesThrough();
  });

  it("3: one token replayed 2,000 times for a session with 15,000 earlier events: each events process takes its hourly allowance, the rest get 429, and the shard does not wedge", async () => {
    const t = await target();
    const session = `replayer-${randomUUID()}`;
    const ad = await serve(HOSTS[0]!, t.publisherId, session);
    const [adRow] = await sql<{ campaign_id: string; advertiser_id: string; site: string }>(
      "SELECT c.id AS campaign_id, c.advertiser_id, s.name AS site FROM campaigns c JOIN sites s ON s.publisher_id = $2 WHERE c.id = $1",
      [ad.campaign_id, t.publisherId],
    );
    await sql(
      `INSERT INTO ad_events (event_id, kind, status, session_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id, ad_type,
                              placement_name, context, site, created_at)
       SELECT gen_random_uuid(), 'impression', (CASE WHEN g % 100 = 0 THEN 'counted' ELSE 'duplicate' END)::"EventStatus", $1, $2, $3, $4, $5,
              CASE WHEN g % 100 = 0 THEN 'history-' || g ELSE 'replayed' END, 'banner', 'slot', 'search', $6, now() - make_interval(secs => 120 + g)
         FROM generate_series(1, 15000) AS g`,
      [session, ad.ad_id, adRow!.campaign_id, adRow!.advertiser_id, t.publisherId, adRow!.site],
    );
    const path = new URL(ad.impression_url).pathname;
    const statuses = await flood(
      (host) => `${host.url}${path}`,
      Array.from({ length: 2000 }, () => ({ session_id: session })),
      25,
    );
    expect(count(statuses, 202)).toBeLessThanOrEqual(HOSTS.length * BEACONS_PER_TOKEN_PER_HOUR);
    expect(count(statuses, 202) + count(statuses, 429)).toBe(2000);
    await settled();
    const [stored] = await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM ad_events WHERE session_id = $1 AND request_id NOT LIKE 'history-%' AND request_id <> 'replayed'",
      [session],
    );
    expect(stored!.n).toBe(count(statuses, 202));
    await legitimateTrafficGoesThrough();
  });

  it("4: 1,000 large orders from 1,000 addresses: what they store is bounded by the size cap, counted per publisher and day, and settled without holding anything up", async () => {
    const t = await target();
    const before = await sql<{ bytes: string }>(
      "SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0)::text AS bytes FROM pg_inherits WHERE inhparent = 'conversion_log'::regclass",
    );
    const orders = Array.from({ length: 1000 }, () => order(t, { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` }, lines(t.sku, 500, 128)));
    const statuses = await flood((host) => `${host.url}/v1/beacon/conversion`, orders, 20);
    const accepted = count(statuses, 202);
    expect(accepted).toBe(1000);
    await settled(60_000);
    const after = await sql<{ bytes: string }>(
      "SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0)::text AS bytes FROM pg_inherits WHERE inhparent = 'conversion_log'::regclass",
    );
    expect(Number(after[0]!.bytes) - Number(before[0]!.bytes)).toBeLessThanOrEqual(accepted * ORDER_MAX_BYTES);
    const intake = await intakeOf(t.publisherId);
    expect(intake.orders).toBe(accepted);
    expect(intake.bytes).toBeGreaterThan(accepted * 50_000);
    expect(intake.bytes).toBeLessThanOrEqual(accepted * ORDER_MAX_BYTES);
    await legitimateTrafficGoesThrough();
  });
});
