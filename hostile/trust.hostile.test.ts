// One file over 300 lines on purpose: every way an anonymous order could buy a brand's figures, against one stack, read as one story.
// Anyone can inflate a brand's sales, as found against the production build: three anonymous
// orders of 5 × 10^12 (POST /v1/beacon/conversion, open to every browser) for a publisher whose
// campaign the shopper clicked made Acme's sales_revenue 15,000,000,000,000 and its ROAS
// 3.75 × 10^13 in the advertiser and publisher reports. Reproduced here at `next start` and the
// collector: Tally's default plausibility limits set such orders aside, so the reports do not
// move (and without those limits, for a publisher that credits orders without proof, they do, as
// found). One shopper session's click then 20 unsigned orders of 99,999 each made a brand's day
// read sales_revenue 1,999,980 and ROAS 2,499,975 for a 0.40 click: by default anonymous orders
// show only as unverified and move no figure, while orders verified by the publisher's API key and
// by an order token are credited; afterwards legitimate orders are attributed within 30 s.

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderTotalMicros } from "@/contracts/order-token";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { utcDay } from "@/server/core/days";
import { updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { signOrderToken } from "@/server/pipeline/accept/conversions/order-proof";
import { rotateSigningSecret } from "@/server/pipeline/accept/conversions/signing-secrets";
import { LARGEST_ORDER_TOTAL } from "@/server/pipeline/accept/conversions/trust-input";
import { store } from "@/server/store";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { checkedFetch, closeSql, eventually, HOSTS, type Host, post, type ServedAd, serve, settled, sql, stack } from "./client";

const EMAIL = "f".repeat(64);
const ACME = { advertiserId: "adv_acme_coffee", publisherId: "pub_demo_market", brand: "demomarket.com", sku: "ACME-BEANS-1KG" };

interface Target {
  publisherId: string;
  sku: string;
  brand?: string;
}

const order = (t: Target, shopper: { session: string; user: string }, items: { quantity: number; price: number }[]) => ({
  publisher_id: t.publisherId,
  ...(t.brand ? { brand: t.brand } : {}),
  user_id: shopper.user,
  session_id: shopper.session,
  order_id: `order-${randomUUID()}`,
  created_at: new Date().toISOString(),
  channel: "web",
  email_hashed: EMAIL,
  items: items.map((item) => ({ sku: t.sku, quantity: item.quantity, price: item.price, promotional_price: item.price })),
});
/** The largest order the schema takes, every line the clicked campaign's SKU: 500 × 10,000 × 1,000,000 = 5 × 10^12. */
const largest = (t: Target, shopper: { session: string; user: string }) =>
  order(
    t,
    shopper,
    Array.from({ length: 500 }, () => ({ quantity: 10_000, price: 1_000_000 })),
  );

/** One of the ads `host` serves on Demo Market's site for "coffee": Acme's sponsored products. */
async function serveAcme(host: Host, session: string): Promise<ServedAd> {
  const answer = await post(`${host.url}/v1/ads`, {
    publisher_id: ACME.publisherId,
    site: ACME.brand,
    session_id: session,
    context: "search",
    term: "coffee",
    placements: [{ name: "slot", types: ["product"] }],
  });
  expect(answer.status).toBe(200);
  const ad = (answer.json() as { ads: Record<string, ServedAd[]> }).ads.slot?.[0];
  expect(ad?.campaign_id).toBe("cmp_acme_sponsored");
  return ad!;
}

/** A shopper served one of the publisher's ads at `host` (Acme's on Demo Market), who clicked it. */
async function shopperWhoClicked(host: Host, publisherId: string) {
  const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
  const ad = publisherId === ACME.publisherId ? await serveAcme(host, shopper.session) : await serve(host, publisherId, shopper.session);
  expect((await post(ad.click_url, { session_id: shopper.session, user_id: shopper.user })).status).toBe(202);
  await settled();
  return shopper;
}

const conversion = (host: Host, body: unknown, headers: Record<string, string> = {}) => post(`${host.url}/v1/beacon/conversion`, body, { headers });

interface Figures {
  sales_revenue: number;
  roas: number;
  ad_revenue: number;
  conversions_total: number;
  unverified_conversions: number;
  unverified_sales_revenue: number;
  uncredited_conversions: number;
  uncredited_sales_revenue: number;
}

/** Today's row of `id` in a report route, asked over HTTP with `key`. */
async function reportRow(path: string, key: string, idField: string, id: string): Promise<Figures> {
  const day = utcDay();
  const response = await checkedFetch(`${stack.nextUrl}${path}?start_date=${day}&end_date=${day}&per_page=1000`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  const rows = ((await response.json()) as { data: (Figures & Record<string, unknown>)[] }).data;
  const row = rows.find((r) => r[idField] === id);
  if (!row) throw new Error(`${path} has no row for ${id}`);
  return row;
}

/** The advertiser's row in the advertiser report (its own view) and its row in the publisher report (as the publisher sees it). */
async function figuresOf(advertiserKey: string, advertiserId: string, publisherKey: string, publisherId: string) {
  return {
    advertiser: await reportRow("/report/v2/advertisers", advertiserKey, "advertiser_id", advertiserId),
    publisher: await reportRow("/report/v2/publishers", publisherKey, "publisher_id", publisherId),
    // The publisher's view of the advertiser, and the advertiser's of the publisher.
    advertiserOnPublisher: await reportRow("/report/v2/advertisers", publisherKey, "advertiser_id", advertiserId),
  };
}

const orderIdsSetAside = async (ids: string[], rule: string) =>
  (await sql<{ n: number }>("SELECT count(*)::int AS n FROM settle_set_aside WHERE order_id = ANY($1) AND rule = $2", [ids, rule]))[0]!.n;
const attributedOrders = async (publisherId: string, ids: string[]) =>
  (
    await sql<{ n: number }>("SELECT count(DISTINCT order_id)::int AS n FROM attributions WHERE publisher_id = $1 AND order_id = ANY($2)", [publisherId, ids])
  )[0]!.n;

/**
 * Today's report rows of an advertiser or a publisher that differ from a recount of the raw rows.
 * Other files of the suite write raw rows straight into the shared database (a session's history),
 * so only this file's accounts are compared.
 */
const driftOf = async (advertiserId: string, publisherId: string) =>
  (await store().rollups.verify(utcDay(), utcDay())).filter((d) => d.advertiser_id === advertiserId || d.publisher_id === publisherId);

let acmeKey: string;
let demoMarketKey: string;
beforeAll(async () => {
  acmeKey = (await createApiKey({ actor: OPERATOR, accountId: ACME.advertiserId, name: "hostile trust" })).key;
  demoMarketKey = (await createApiKey({ actor: OPERATOR, accountId: ACME.publisherId, name: "hostile trust" })).key;
});
afterAll(closeSql);

describe("inflating a brand's sales with anonymous orders", { timeout: 300_000 }, () => {
  it("three orders of 5 × 10^12 for Acme, after a click on its campaign, leave its sales and ROAS where they were", async () => {
    const shopper = await shopperWhoClicked(HOSTS[0]!, ACME.publisherId);
    // The click has been charged: ROAS has a spend to be divided by.
    const before = await figuresOf(acmeKey, ACME.advertiserId, demoMarketKey, ACME.publisherId);
    expect(before.advertiser.ad_revenue).toBeGreaterThan(0);
    const orders = [largest(ACME, shopper), largest(ACME, shopper), largest(ACME, shopper)];
    for (const [i, body] of orders.entries()) {
      const answer = await conversion(HOSTS[i % HOSTS.length]!, body);
      expect(answer.status).toBe(202);
      expect(answer.json()).toMatchObject({ verified: false });
    }
    await settled();
    const ids = orders.map((o) => o.order_id);
    await eventually("the three orders are set aside by the order total limit", async () => (await orderIdsSetAside(ids, "order_total_limit")) === 3);
    // Attribution has run past the moment they were settled: a later order of the shopper is attributed.
    const later = order(ACME, shopper, [{ quantity: 1, price: 24.9 }]);
    expect((await conversion(HOSTS[1]!, later, { Authorization: `Bearer ${demoMarketKey}` })).json()).toMatchObject({ verified: true });
    await eventually("a later plausible order is attributed", async () => (await attributedOrders(ACME.publisherId, [later.order_id])) === 1);

    const after = await figuresOf(acmeKey, ACME.advertiserId, demoMarketKey, ACME.publisherId);
    for (const view of ["advertiser", "publisher", "advertiserOnPublisher"] as const) {
      // Only the plausible order's 24.90 was added; the three set aside add nothing.
      expect(after[view].sales_revenue - before[view].sales_revenue, view).toBeCloseTo(24.9, 6);
      expect(after[view].sales_revenue, view).toBeLessThan(1_000_000);
      expect(after[view].roas, view).toBeCloseTo(after[view].sales_revenue / after[view].ad_revenue, 6);
    }
    expect(await sql("SELECT 1 FROM conversions WHERE order_id = ANY($1)", [ids])).toEqual([]);
    expect(await driftOf(ACME.advertiserId, ACME.publisherId)).toEqual([]);
  });

  it("without the limits (a publisher that raised them to the largest there are and credits orders without proof), the same three orders make the finding's figures", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser({ wallet: 1000 });
    const sku = `TRUST-${randomUUID()}`;
    await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.4, products: [{ sku, name: "Beans" }] });
    await updateConversionTrust({
      actor: OPERATOR,
      publisherId: publisher.id,
      creditUnverified: true,
      maxOrderTotal: LARGEST_ORDER_TOTAL,
      maxLineQuantity: 10_000,
    });
    const advertiserKey = (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "control" })).key;
    const publisherKey = (await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "control" })).key;
    const target = { publisherId: publisher.id, sku };
    const shopper = await shopperWhoClicked(HOSTS[1]!, publisher.id);
    const orders = [largest(target, shopper), largest(target, shopper), largest(target, shopper)];
    for (const [i, body] of orders.entries()) expect((await conversion(HOSTS[i % HOSTS.length]!, body)).status).toBe(202);
    await eventually(
      "the three orders are attributed",
      async () =>
        (await attributedOrders(
          publisher.id,
          orders.map((o) => o.order_id),
        )) === 3,
    );
    const figures = await figuresOf(advertiserKey, advertiser.id, publisherKey, publisher.id);
    for (const view of ["advertiser", "publisher"] as const) {
      expect(figures[view].sales_revenue).toBe(15_000_000_000_000);
      expect(figures[view].ad_revenue).toBe(0.4);
      expect(figures[view].roas).toBe(3.75e13);
      // Counted as unverified too: the orders came with no proof.
      expect(figures[view].unverified_sales_revenue).toBe(15_000_000_000_000);
    }
  });
});

describe("a publisher that credits only proven orders (every publisher's default)", { timeout: 300_000 }, () => {
  let target: Target;
  let advertiserId: string;
  let advertiserKey: string;
  let publisherKey: string;
  let secret: string;
  beforeAll(async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser({ wallet: 1000 });
    const sku = `TRUST-${randomUUID()}`;
    await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.5, products: [{ sku, name: "Beans" }] });
    advertiserId = advertiser.id;
    advertiserKey = (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "reports" })).key;
    publisherKey = (await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "checkout" })).key;
    secret = (await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id })).secret;
    target = { publisherId: publisher.id, sku };
  });

  it("shows anonymous orders only as unverified, and credits an order verified by its key and one by a token", async () => {
    const shopper = await shopperWhoClicked(HOSTS[0]!, target.publisherId);
    const anonymous = [0, 1, 2].map(() => order(target, shopper, [{ quantity: 2, price: 25 }]));
    for (const [i, body] of anonymous.entries()) expect((await conversion(HOSTS[i % HOSTS.length]!, body)).json()).toMatchObject({ verified: false });

    const byKey = order(target, shopper, [{ quantity: 1, price: 30 }]);
    const byToken = order(target, shopper, [{ quantity: 3, price: 4.1 }]);
    const token = signOrderToken(secret, byToken.order_id, orderTotalMicros(byToken.items));
    // Each proof at each host.
    expect((await conversion(HOSTS[1]!, byKey, { Authorization: `Bearer ${publisherKey}` })).json()).toMatchObject({ verified: true });
    expect((await conversion(HOSTS[0]!, { ...byToken, order_token: token })).json()).toMatchObject({ verified: true });
    for (const host of HOSTS) {
      // Another account's key, a made-up one: refused, and nothing of them stored.
      const refused = order(target, shopper, [{ quantity: 1, price: 1 }]);
      expect((await conversion(host, refused, { Authorization: `Bearer ${advertiserKey}` })).status).toBe(403);
      expect((await conversion(host, refused, { Authorization: `Bearer tly_${"Z".repeat(32)}` })).status).toBe(401);
      expect(await sql("SELECT 1 FROM order_receipts WHERE order_id = $1", [refused.order_id])).toEqual([]);
      // A browser cannot send a key across origins: the preflight does not allow the header.
      const preflight = await fetch(`${host.url}/v1/beacon/conversion`, {
        method: "OPTIONS",
        headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization" },
      });
      expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).not.toContain("authorization");
    }

    const ids = [...anonymous, byKey, byToken].map((o) => o.order_id);
    await eventually("the five orders are attributed", async () => (await attributedOrders(target.publisherId, ids)) === 5);
    const figures = await figuresOf(advertiserKey, advertiserId, publisherKey, target.publisherId);
    for (const view of ["advertiser", "publisher", "advertiserOnPublisher"] as const) {
      expect(figures[view], view).toMatchObject({
        conversions_total: 2,
        sales_revenue: 42.3,
        ad_revenue: 0.5,
        unverified_conversions: 3,
        unverified_sales_revenue: 150,
        uncredited_conversions: 3,
        uncredited_sales_revenue: 150,
      });
      expect(figures[view].roas, view).toBeCloseTo(42.3 / 0.5, 9);
    }
    expect(await driftOf(advertiserId, target.publisherId)).toEqual([]);
  });
});

describe("one shopper session's twenty anonymous orders after a click", { timeout: 300_000 }, () => {
  it("leave the brand's conversions, sales and ROAS where they were, show as unverified, and a signed order still credits", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser({ wallet: 1000 });
    const sku = `TRUST-${randomUUID()}`;
    await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.4, products: [{ sku, name: "Beans" }] });
    const advertiserKey = (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "reports" })).key;
    const publisherKey = (await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "checkout" })).key;
    const secret = (await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id })).secret;
    const target = { publisherId: publisher.id, sku };
    const shopper = await shopperWhoClicked(HOSTS[0]!, publisher.id);
    const before = await figuresOf(advertiserKey, advertiser.id, publisherKey, publisher.id);
    expect(before.advertiser).toMatchObject({ ad_revenue: 0.4, conversions_total: 0, sales_revenue: 0 });

    // The finding: 20 orders of one line at 99,999 each, sent from the shopper's browser with no proof.
    const anonymous = Array.from({ length: 20 }, () => order(target, shopper, [{ quantity: 1, price: 99_999 }]));
    for (const [i, body] of anonymous.entries()) expect((await conversion(HOSTS[i % HOSTS.length]!, body)).json()).toMatchObject({ verified: false });
    const ids = anonymous.map((o) => o.order_id);
    await eventually("the twenty orders are attributed", async () => (await attributedOrders(publisher.id, ids)) === 20);
    const after = await figuresOf(advertiserKey, advertiser.id, publisherKey, publisher.id);
    for (const view of ["advertiser", "publisher", "advertiserOnPublisher"] as const) {
      expect(after[view], view).toMatchObject({
        conversions_total: before[view].conversions_total,
        sales_revenue: before[view].sales_revenue,
        roas: before[view].roas,
        unverified_conversions: 20,
        unverified_sales_revenue: 1_999_980,
        uncredited_conversions: 20,
        uncredited_sales_revenue: 1_999_980,
      });
    }
    // Nor did they make the click a converted one.
    const converted = await sql<{ n: number }>("SELECT count(*)::int AS n FROM attributions WHERE order_id = ANY($1) AND credited", [ids]);
    expect(converted[0]!.n).toBe(0);

    // A real order, signed by the publisher's server, from another shopper who clicked: credited.
    const buyer = await shopperWhoClicked(HOSTS[1]!, publisher.id);
    const signed = order(target, buyer, [{ quantity: 2, price: 15 }]);
    const token = signOrderToken(secret, signed.order_id, orderTotalMicros(signed.items));
    expect((await conversion(HOSTS[1]!, { ...signed, order_token: token })).json()).toMatchObject({ verified: true });
    await eventually("the signed order is attributed", async () => (await attributedOrders(publisher.id, [signed.order_id])) === 1);
    const credited = await figuresOf(advertiserKey, advertiser.id, publisherKey, publisher.id);
    for (const view of ["advertiser", "publisher", "advertiserOnPublisher"] as const) {
      expect(credited[view], view).toMatchObject({ conversions_total: 1, sales_revenue: 30, ad_revenue: 0.8, unverified_conversions: 20 });
      expect(credited[view].roas, view).toBeCloseTo(30 / 0.8, 9);
    }
    expect(await driftOf(advertiser.id, publisher.id)).toEqual([]);
  });
});

describe("after the attacks", { timeout: 300_000 }, () => {
  it.each(HOSTS)("a legitimate order at $name is attributed within 30 s", async (host) => {
    const shopper = await shopperWhoClicked(host, ACME.publisherId);
    const body = order(ACME, shopper, [{ quantity: 2, price: 19.9 }]);
    expect((await conversion(host, body, { Authorization: `Bearer ${demoMarketKey}` })).json()).toMatchObject({ verified: true });
    await eventually("the order is attributed", async () => (await attributedOrders(ACME.publisherId, [body.order_id])) === 1, 30_000);
  });
});
