// What every attack in the hostile suite ends with: a shopper's click and order, sent after the
// attack, go all the way (settled, attributed) within 30 s at each host; health and the cron routes
// answer 200, and the settle cron reports no failed step.
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { eventually, HOSTS, post, serve, sql, stack } from "./client";
import { HOSTILE_ENV } from "./global-stack";

/** A publisher with a campaign of one SKU that the legitimate shopper clicks and buys. */
export interface Shop {
  publisherId: string;
  sku: string;
}

export async function makeShop(): Promise<Shop> {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  const sku = `SHOP-${randomUUID()}`;
  await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.1, products: [{ sku, name: "Beans" }] });
  return { publisherId: publisher.id, sku };
}

let shop: Promise<Shop> | undefined;

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.nextUrl}${path}`, { headers });

export async function legitimateTrafficGoesThrough(): Promise<void> {
  shop ??= makeShop();
  const { publisherId, sku } = await shop;
  for (const host of HOSTS) {
    const shopper = { session: `legit-${randomUUID()}`, user: `legit-${randomUUID()}` };
    const ad = await serve(host, publisherId, shopper.session);
    expect((await post(ad.click_url, { session_id: shopper.session, user_id: shopper.user })).status).toBe(202);
    const order = {
      publisher_id: publisherId,
      user_id: shopper.user,
      session_id: shopper.session,
      order_id: `legit-${randomUUID()}`,
      created_at: new Date().toISOString(),
      channel: "web",
      email_hashed: "e".repeat(64),
      items: [{ sku, quantity: 1, price: 4, promotional_price: 4 }],
    };
    expect((await post(`${host.url}/v1/beacon/conversion`, order)).status).toBe(202);
    await eventually(
      `at ${host.name}: the click after the attack is settled and the order attributed to it`,
      async () =>
        (await sql("SELECT 1 FROM ad_events WHERE session_id = $1 AND status = 'counted'", [shopper.session])).length === 1 &&
        (await sql("SELECT 1 FROM attributions WHERE publisher_id = $1 AND order_id = $2", [publisherId, order.order_id])).length === 1,
    );
  }
  expect((await get("/api/health")).status).toBe(200);
  const cron = { Authorization: `Bearer ${HOSTILE_ENV.CRON_SECRET}` };
  const settleCron = await get("/api/cron/settle", cron);
  expect(settleCron.status).toBe(200);
  expect(((await settleCron.json()) as { failed_steps: unknown[] }).failed_steps).toEqual([]);
  expect((await get("/api/cron/attribution", cron)).status).toBe(200);
}
