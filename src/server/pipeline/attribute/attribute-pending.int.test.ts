// One file over 300 lines on purpose: the attribution rules, each a case over the same shoppers and campaigns.
import { createHash, randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createAd } from "@/server/campaigns/create-ad";
import { addDays } from "@/server/core/days";
import { db } from "@/server/db/client";
import { verifyRollups } from "@/server/store/postgres/verify-rollups.sql";
import { attribute, attributionsOf, before, type Campaign, DAY, HOUR, ORDER_TIME, placeOrder, touch } from "@/testing/attribution-fixture";
import { servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { attributePendingConversions } from "./attribute-pending";
import { attributionWindows, setAttributionWindows } from "./attribution-windows";

let publisher: Awaited<ReturnType<typeof makePublisher>>;
let advertiser: Awaited<ReturnType<typeof makeAdvertiser>>;
let coffee: Campaign;
let pods: Campaign;

beforeEach(async () => {
  publisher = await makePublisher();
  advertiser = await makeAdvertiser();
  const tag = randomUUID().slice(0, 8);
  coffee = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.4,
    products: [{ sku: `BEANS-${tag}`, name: "Beans", productId: `COFFEE-${tag}` }],
  });
  pods = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.3,
    sharedProducts: coffee.products,
    products: [{ sku: `PODS-${tag}`, name: "Pods" }],
  });
});
const beans = () => coffee.products[0]!.sku;

describe("attribution of order items", () => {
  it("attributes an item to the shopper's click with every layout C field", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const eventId = await touch("click", coffee, publisher, shopper, before(2 * HOUR));
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: beans(), quantity: 3, price: 12.5, promotional_price: 9.99 }]);
    expect(await attributionsOf(orderId)).toEqual([]);

    const done = await attribute();
    expect(done).toEqual({ orders: 1, items: 1, attributedOrders: 1, setAside: 0 });
    const [attribution] = await attributionsOf(orderId);
    const conversion = await db.conversion.findFirstOrThrow({ where: { orderId } });
    expect(attribution).toMatchObject({
      conversionId: conversion.eventId,
      publisherId: publisher.id,
      orderId,
      sessionId: shopper.session,
      userId: shopper.user,
      productSku: beans(),
      eventId,
      eventKind: "click",
      adId: coffee.ad.id,
      campaignId: coffee.campaign.id,
      advertiserId: advertiser.id,
      adSize: null,
      adType: "product",
      placementName: "search-sponsored",
      context: "search",
      site: publisher.sites[0]!.name,
      eventCreatedAt: before(2 * HOUR),
      placedAt: ORDER_TIME,
      priceMicros: 12_500_000n,
      promotionalPriceMicros: 9_990_000n,
      quantity: 3,
      totalValueMicros: 29_970_000n,
    });
    expect((await db.conversion.findFirstOrThrow({ where: { orderId } })).attributedAt).not.toBeNull();
  });

  it("a click beats a later view and a later impression", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const click = await touch("click", coffee, publisher, shopper, before(5 * HOUR));
    await touch("view", pods, publisher, shopper, before(1 * HOUR));
    await touch("impression", pods, publisher, shopper, before(0.5 * HOUR));
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: beans() }]);
    await attribute();
    expect((await attributionsOf(orderId)).map((a) => a.eventId)).toEqual([click]);
  });

  it("a view beats a later impression; without clicks or views the latest impression wins", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const view = await touch("view", coffee, publisher, shopper, before(5 * HOUR));
    await touch("impression", pods, publisher, shopper, before(1 * HOUR));
    const first = await placeOrder(publisher.id, shopper, [{ sku: beans() }]);

    const other = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("impression", coffee, publisher, other, before(5 * HOUR));
    const latestImpression = await touch("impression", pods, publisher, other, before(3 * HOUR));
    const second = await placeOrder(publisher.id, other, [{ sku: beans() }]);
    await attribute();
    expect((await attributionsOf(first.orderId)).map((a) => a.eventId)).toEqual([view]);
    expect((await attributionsOf(second.orderId)).map((a) => a.eventId)).toEqual([latestImpression]);
  });

  it("the latest click wins", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("click", coffee, publisher, shopper, before(4 * DAY));
    await touch("click", coffee, publisher, shopper, before(3 * DAY));
    const latest = await touch("click", pods, publisher, shopper, before(2 * DAY));
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: beans() }]);
    await attribute();
    const [attribution, ...others] = await attributionsOf(orderId);
    expect(others).toEqual([]);
    expect(attribution).toMatchObject({ eventId: latest, campaignId: pods.campaign.id });
  });

  it("a touch 14 days before the order counts; 14 days and one second before does not; one after the order does not", async () => {
    const early = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("click", coffee, publisher, early, before(14 * DAY + 1000));
    await touch("click", coffee, publisher, early, new Date(ORDER_TIME.getTime() + 1000));
    const tooEarly = await placeOrder(publisher.id, early, [{ sku: beans() }]);

    const edge = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const atEdge = await touch("click", coffee, publisher, edge, before(14 * DAY));
    const onEdge = await placeOrder(publisher.id, edge, [{ sku: beans() }]);
    await attribute();
    expect(await attributionsOf(tooEarly.orderId)).toEqual([]);
    expect((await attributionsOf(onEdge.orderId)).map((a) => a.eventId)).toEqual([atEdge]);
  });

  it("attributes only items whose SKU (or product_id) belongs to the touched campaign", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const click = await touch("click", coffee, publisher, shopper, before(HOUR));
    const { orderId } = await placeOrder(publisher.id, shopper, [
      { sku: beans() },
      { sku: "SOMETHING-ELSE" },
      { sku: "BEANS-1KG", product_id: coffee.products[0]!.productId! },
      { sku: "TEA-1", product_id: "NOT-A-CAMPAIGN-PRODUCT" },
    ]);
    const done = await attribute();
    expect(done).toEqual({ orders: 1, items: 2, attributedOrders: 1, setAside: 0 });
    // Sorted here: beans() carries a random suffix, so its place beside BEANS-1KG varies by run.
    const bySku = (a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0);
    expect((await attributionsOf(orderId)).map((a) => [a.productSku, a.eventId]).sort(bySku)).toEqual(
      [
        ["BEANS-1KG", click],
        [beans(), click],
      ].sort(bySku),
    );
  });

  it("does not attribute a touch on another publisher, nor bot or duplicate events", async () => {
    const elsewhere = await makePublisher();
    const both = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id, elsewhere.id],
      type: "product",
      products: [{ sku: `MUGS-${randomUUID()}`, name: "Mug" }],
    });
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("click", both, elsewhere, shopper, before(HOUR));
    const bot = await recordAndSettle({
      claims: servedClaims({ ...both, publisher }, shopper.session, { kind: "click", at: before(HOUR), placementName: "p", context: "search" }),
      body: { session_id: shopper.session, user_id: shopper.user },
      userAgent: "Googlebot/2.1 (+http://www.google.com/bot.html)",
      now: before(HOUR),
    });
    expect(bot.status).toBe("bot");
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: both.products[0]!.sku }]);
    expect(await attribute()).toEqual({ orders: 1, items: 0, attributedOrders: 0, setAside: 0 });
    expect(await attributionsOf(orderId)).toEqual([]);
  });

  it("matches by user_id across sessions, and not a touch of another user in the same session", async () => {
    const user = `u-${randomUUID()}`;
    const onPhone = await touch("click", coffee, publisher, { session: `phone-${user}`, user }, before(DAY));
    const first = await placeOrder(publisher.id, { session: `laptop-${user}`, user }, [{ sku: beans() }]);

    const sharedSession = `s-${randomUUID()}`;
    await touch("click", coffee, publisher, { session: sharedSession, user: `someone-else-${user}` }, before(DAY));
    const second = await placeOrder(publisher.id, { session: sharedSession, user: `buyer-${user}` }, [{ sku: beans() }]);
    await attribute();
    expect((await attributionsOf(first.orderId)).map((a) => a.eventId)).toEqual([onPhone]);
    expect(await attributionsOf(second.orderId)).toEqual([]);
  });

  it("matches by session_id when the touch has no user_id", async () => {
    const session = `s-${randomUUID()}`;
    const anonymous = await touch("click", coffee, publisher, { session }, before(DAY));
    await touch("click", coffee, publisher, { session: `other-${session}` }, before(HOUR));
    const { orderId } = await placeOrder(publisher.id, { session, user: `u-${randomUUID()}` }, [{ sku: beans() }]);
    await attribute();
    expect((await attributionsOf(orderId)).map((a) => a.eventId)).toEqual([anonymous]);
  });

  it("uses the windows of the campaign's type from attribution_windows", async () => {
    const display = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "display",
      products: [{ sku: `DISPLAY-${randomUUID()}`, name: "Shown" }],
    });
    const interfaceDefault = { clickDays: 14, viewDays: 14, viewThrough: "views_and_impressions" };
    expect(await attributionWindows()).toEqual({ product: interfaceDefault, display: interfaceDefault, video: interfaceDefault });
    const week = { campaignType: "display" as const, clickDays: 7, viewDays: 7, viewThrough: "views_and_impressions" as const };
    await setAttributionWindows({ actor: OPERATOR, ...week });
    expect((await attributionWindows()).display).toEqual({ clickDays: 7, viewDays: 7, viewThrough: "views_and_impressions" });
    await expect(setAttributionWindows({ actor: OPERATOR, ...week, viewDays: 0 })).rejects.toThrow("viewDays: Too small");
    await expect(setAttributionWindows({ actor: OPERATOR, ...week, clickDays: 91 })).rejects.toThrow("clickDays: Too big");
    await expect(setAttributionWindows({ actor: OPERATOR, ...week, campaignType: "banner" as "display" })).rejects.toMatchObject({ code: "bad_request" });
    // A member of an advertiser may not change how every advertiser is credited; nothing changes.
    const member = {
      userId: "u",
      email: "m@brand.test",
      name: "M",
      role: "member" as const,
      accountId: display.campaign.advertiserId,
      memberRole: "admin" as const,
    };
    await expect(setAttributionWindows({ actor: member, ...week, clickDays: 30 })).rejects.toMatchObject({ code: "forbidden" });
    expect((await attributionWindows()).display.clickDays).toBe(7);
    try {
      const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
      await touch("impression", display, publisher, shopper, before(8 * DAY));
      const productTouch = await touch("impression", coffee, publisher, shopper, before(10 * DAY));
      const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: display.products[0]!.sku }, { sku: beans() }]);
      await attribute();
      expect((await attributionsOf(orderId)).map((a) => a.eventId)).toEqual([productTouch]);
    } finally {
      await setAttributionWindows({ actor: OPERATOR, ...week, clickDays: 14, viewDays: 14 });
    }
  });

  it("running attribution again changes nothing, even for orders put back in the queue", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("click", coffee, publisher, shopper, before(DAY));
    await touch("view", pods, publisher, shopper, before(HOUR));
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: beans() }, { sku: pods.products[1]!.sku }]);
    await attribute();
    const first = await attributionsOf(orderId);
    expect(first).toHaveLength(2);

    expect(await attribute()).toEqual({ orders: 0, items: 0, attributedOrders: 0, setAside: 0 });
    await db.conversion.updateMany({ where: { orderId }, data: { attributedAt: null } });
    expect(await attribute()).toEqual({ orders: 1, items: 0, attributedOrders: 0, setAside: 0 });
    expect(await attributionsOf(orderId)).toEqual(first);
  });

  it("a repeated order is attributed once", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("click", coffee, publisher, shopper, before(HOUR));
    const first = await placeOrder(publisher.id, shopper, [{ sku: beans() }]);
    const again = await placeOrder(publisher.id, shopper, [{ sku: beans() }], first.orderId);
    expect(again.outcome).toBe("duplicate");
    await attribute();
    expect(await attributionsOf(first.orderId)).toHaveLength(1);
    expect(await db.attribution.count({ where: { orderId: first.orderId } })).toBe(1);
  });

  it("leaves orders younger than the settle time for the next run", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    await touch("click", coffee, publisher, shopper, before(HOUR));
    const { orderId } = await placeOrder(publisher.id, shopper, [{ sku: beans() }]);
    expect(await attributePendingConversions({ settleMs: 60_000 })).toEqual({ orders: 0, items: 0, attributedOrders: 0, setAside: 0 });
    expect(await attributionsOf(orderId)).toEqual([]);
    expect((await attributePendingConversions({ settleMs: 60_000, now: new Date(Date.now() + 61_000) })).orders).toBe(1);
    expect(await attributionsOf(orderId)).toHaveLength(1);
  });

  it("two workers at once attribute each order once", async () => {
    const orders = [];
    for (let i = 0; i < 30; i += 1) {
      const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
      await touch("click", coffee, publisher, shopper, before(HOUR));
      orders.push((await placeOrder(publisher.id, shopper, [{ sku: beans() }])).orderId);
    }
    const [a, b] = await Promise.all([attributePendingConversions({ settleMs: 0, batchSize: 7 }), attributePendingConversions({ settleMs: 0, batchSize: 7 })]);
    expect(a.orders + b.orders).toBe(30);
    expect(a.items + b.items).toBe(30);
    expect(await db.attribution.count({ where: { orderId: { in: orders } } })).toBe(30);
  });

  it("two workers at once count a click that leads to many orders as converted once", async () => {
    const campaign = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      bidModel: "cpc",
      bid: 0.1,
      products: [{ sku: `TEA-${randomUUID()}`, name: "Tea" }],
    });
    const sku = campaign.products[0]!.sku;
    for (let shopper = 0; shopper < 3; shopper += 1) {
      const who = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
      await touch("click", campaign, publisher, who, before(HOUR));
      for (let i = 0; i < 8; i += 1) await placeOrder(publisher.id, who, [{ sku }]);
    }
    await Promise.all([attributePendingConversions({ settleMs: 0, batchSize: 3 }), attributePendingConversions({ settleMs: 0, batchSize: 3 })]);
    const rows = await db.dailyRollup.findMany({ where: { campaignId: campaign.campaign.id } });
    const sum = (pick: (r: (typeof rows)[number]) => bigint) => rows.reduce((total, r) => total + pick(r), 0n);
    expect([sum((r) => r.clicks), sum((r) => r.convertedClicks), sum((r) => r.conversions), sum((r) => r.conversionsClick)]).toEqual([3n, 3n, 24n, 24n]);
    const day = ORDER_TIME.toISOString().slice(0, 10);
    expect(await verifyRollups(addDays(day, -1), day)).toEqual([]);
  });

  it("gives the result of the worked example in docs/conversions.md", async () => {
    const acme = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      bidModel: "cpc",
      bid: 0.4,
      products: [
        { sku: `ACME-BEANS-1KG-${randomUUID()}`, name: "Beans" },
        { sku: `ACME-GROUND-500-${randomUUID()}`, name: "Ground" },
        { sku: `ACME-PODS-50-${randomUUID()}`, name: "Pods" },
      ],
    });
    const beansAd = acme;
    const podsAd = {
      ...acme,
      ad: await createAd({
        actor: OPERATOR,
        campaignId: acme.campaign.id,
        name: "Pods",
        type: "product",
        productRefs: [acme.products[2]!.id],
        destinationUrl: "https://shop.example/pods",
      }),
    };
    const [beansSku, , podsSku] = acme.products.map((p) => p.sku) as [string, string, string];
    const user = `customer-${randomUUID()}`;
    const session = `s-${randomUUID()}`;
    // The docs' times, moved together so that the order is placed five days before today (it is
    // received now, and may not be older than 30 days).
    const order = new Date(Math.floor(Date.now() / 86_400_000 - 5) * 86_400_000 + 10 * 3_600_000);
    const shift = order.getTime() - Date.parse("2026-11-16T10:00:00Z");
    const at = (iso: string) => new Date(Date.parse(`2026-${iso}Z`) + shift);

    await touch("impression", beansAd, publisher, { session: `old-${session}`, user }, at("11-01T09:00:00"));
    await touch("impression", podsAd, publisher, { session }, at("11-08T18:30:00"));
    await touch("view", podsAd, publisher, { session }, at("11-08T18:30:05"));
    const click = await touch("click", beansAd, publisher, { session }, at("11-08T18:31:00"));
    await touch("view", podsAd, publisher, { session: `p-${session}`, user }, at("11-09T12:00:00"));
    await recordAndSettleConversion({
      publisher_id: publisher.id,
      user_id: user,
      session_id: session,
      order_id: `100023-${session}`,
      created_at: order.toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update("ana.souza@example.com").digest("hex"),
      items: [
        { sku: beansSku, quantity: 2, price: 24.9, promotional_price: 19.9 },
        { sku: podsSku, quantity: 1, price: 17, promotional_price: 17 },
        { sku: "TEA-GREEN-20", quantity: 1, price: 5, promotional_price: 5 },
      ],
    });
    await attribute();
    const credited = await attributionsOf(`100023-${session}`);
    expect(credited.map((a) => [a.productSku, a.eventId, a.adId, a.totalValueMicros])).toEqual(
      [
        [beansSku, click, beansAd.ad.id, 39_800_000n],
        [podsSku, click, beansAd.ad.id, 17_000_000n],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });
});
