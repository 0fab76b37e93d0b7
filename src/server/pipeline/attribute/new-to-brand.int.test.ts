// New-to-brand, case by case: a credited line is new to its brand when its shopper (by user id or
// hashed e-mail) bought none of the brand's SKUs at that publisher in the look-back before, whether
// that purchase was attributed or not; and the reports count such orders and their sales.
import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "@/env";
import { DAY_MS } from "@/server/core/days";
import { db } from "@/server/db/client";
import { store } from "@/server/store";
import { verifyRollups } from "@/server/store/postgres/verify-rollups.sql";
import { dropExpiredBrandPurchases } from "@/server/upkeep/brand-purchase-retention.sql";
import { attribute, type Campaign, HOUR, touch } from "@/testing/attribution-fixture";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettleConversion } from "@/testing/settle";

type Publisher = Awaited<ReturnType<typeof makePublisher>>;
let shop: Publisher;
let otherShop: Publisher;
let tea: Campaign; // the brand's campaign, selling TEA
let coffee: Campaign; // another brand's, selling COFFEE
let honey: string; // another SKU of the tea brand, in the shop's catalogue
const LOOK_BACK_MS = env().TALLY_NEW_TO_BRAND_DAYS * DAY_MS;
// Noon UTC ten days ago: orders must lie within the 30 days before their receipt (now).
const T = Math.floor(Date.now() / DAY_MS - 10) * DAY_MS + 12 * HOUR;

beforeAll(async () => {
  [shop, otherShop] = [await makePublisher(), await makePublisher()];
  const [brand, rival] = [await makeAdvertiser(), await makeAdvertiser()];
  tea = await makeCampaignWithAd({
    advertiserId: brand.id,
    publisherIds: [shop.id, otherShop.id],
    type: "product",
    products: [{ sku: `TEA-${randomUUID().slice(0, 8)}`, name: "Tea" }],
  });
  coffee = await makeCampaignWithAd({
    advertiserId: rival.id,
    publisherIds: [shop.id],
    type: "product",
    products: [{ sku: `COFFEE-${randomUUID().slice(0, 8)}`, name: "Coffee" }],
  });
  honey = `HONEY-${randomUUID().slice(0, 8)}`;
  await db.publisherCatalogueEntry.create({ data: { publisherId: shop.id, sku: honey, advertiserId: brand.id } });
});

interface Shopper {
  session: string;
  user: string;
  email: string;
}
const newShopper = (): Shopper => ({ session: `s-${randomUUID()}`, user: `u-${randomUUID()}`, email: `${randomUUID()}@example.com` });

/**
 * An order of `skus` by `who` at `publisher`, placed at `placedAt`, settled (not yet attributed); its
 * order id. Sent by the publisher's checkout server with its key unless `proven` is false.
 */
async function order(publisher: Publisher, who: Shopper, skus: string[], placedAt: number, { proven = true } = {}): Promise<string> {
  const orderId = `o-${randomUUID()}`;
  await recordAndSettleConversion(
    {
      publisher_id: publisher.id,
      user_id: who.user,
      session_id: who.session,
      order_id: orderId,
      created_at: new Date(placedAt).toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update(who.email).digest("hex"),
      items: skus.map((sku) => ({ sku, quantity: 1, price: 10, promotional_price: 10 })),
    },
    undefined,
    { proven },
  );
  return orderId;
}

/** Whether the order's line of `sku` was credited new-to-brand (null: not credited). */
async function newToBrand(orderId: string, sku: string): Promise<boolean | null> {
  const row = await db.attribution.findFirst({ where: { orderId, productSku: sku } });
  return row ? row.newToBrand : null;
}

/** A shopper who clicked the tea ad an hour before T. */
async function teaShopper(publisher: Publisher = shop, who: Shopper = newShopper()): Promise<Shopper> {
  await touch("click", tea, publisher, { session: who.session, user: who.user }, new Date(T - HOUR));
  return who;
}

describe("new-to-brand", () => {
  it("a shopper's first purchase of the brand is new to it; the next, days later, is not", async () => {
    const who = await teaShopper();
    const first = await order(shop, who, [tea.products[0]!.sku], T - 2 * DAY_MS + HOUR);
    await attribute();
    const second = await order(shop, who, [tea.products[0]!.sku], T);
    await attribute();
    // The click came after the first order: only the second is credited, and it is not new.
    expect(await newToBrand(first, tea.products[0]!.sku)).toBeNull();
    expect(await newToBrand(second, tea.products[0]!.sku)).toBe(false);
  });

  it("a purchase with no ad behind it still counts as buying the brand", async () => {
    const who = newShopper();
    await order(shop, who, [honey], T - DAY_MS); // another SKU of the brand, no touch: attributed to nothing
    await attribute();
    await teaShopper(shop, who);
    const later = await order(shop, who, [tea.products[0]!.sku], T);
    await attribute();
    expect(await newToBrand(later, tea.products[0]!.sku)).toBe(false);
  });

  it("names a shopper by hashed e-mail as well as by user id", async () => {
    const who = newShopper();
    await order(shop, { ...who, user: `u-${randomUUID()}` }, [tea.products[0]!.sku], T - DAY_MS); // same e-mail, another user id
    await attribute();
    await teaShopper(shop, who);
    const later = await order(shop, who, [tea.products[0]!.sku], T);
    await attribute();
    expect(await newToBrand(later, tea.products[0]!.sku)).toBe(false);
  });

  it("is per publisher and per brand: a purchase elsewhere, or of another brand, leaves a line new", async () => {
    const who = newShopper();
    await order(otherShop, who, [tea.products[0]!.sku], T - DAY_MS);
    await order(shop, who, [coffee.products[0]!.sku], T - DAY_MS);
    await attribute();
    await teaShopper(shop, who);
    const later = await order(shop, who, [tea.products[0]!.sku], T);
    await attribute();
    expect(await newToBrand(later, tea.products[0]!.sku)).toBe(true);
  });

  it("looks back exactly the look-back: a purchase at its edge counts, one a millisecond older does not", async () => {
    for (const [ago, expected] of [
      [LOOK_BACK_MS, false],
      [LOOK_BACK_MS + 1, true],
    ] as const) {
      const who = await teaShopper();
      const at = new Date(T - ago);
      await db.brandPurchase.create({
        data: { publisherId: shop.id, advertiserId: tea.campaign.advertiserId, shopper: `user:${who.user}`, firstPurchasedAt: at, lastPurchasedAt: at },
      });
      const later = await order(shop, who, [tea.products[0]!.sku], T);
      await attribute();
      expect(await newToBrand(later, tea.products[0]!.sku)).toBe(expected);
    }
  });

  it("two orders of one shopper attributed together: the earlier is new, the later is not", async () => {
    const who = await teaShopper();
    const earlier = await order(shop, who, [tea.products[0]!.sku], T);
    const later = await order(shop, who, [tea.products[0]!.sku], T + 2 * HOUR);
    await attribute();
    expect([await newToBrand(earlier, tea.products[0]!.sku), await newToBrand(later, tea.products[0]!.sku)]).toEqual([true, false]);
  });

  it("ignores an order sent again within 30 days: no second credit, and its first stays new", async () => {
    const who = await teaShopper(otherShop);
    const body = {
      publisher_id: otherShop.id,
      user_id: who.user,
      session_id: who.session,
      order_id: `o-${randomUUID()}`,
      created_at: new Date(T).toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update(who.email).digest("hex"),
      items: [{ sku: tea.products[0]!.sku, quantity: 1, price: 10, promotional_price: 10 }],
    };
    expect((await recordAndSettleConversion(body, undefined, { proven: true })).outcome).toBe("stored");
    await attribute();
    expect((await recordAndSettleConversion({ ...body, created_at: new Date(T + HOUR).toISOString() }, undefined, { proven: true })).outcome).toBe("duplicate");
    await attribute();
    const lines = await db.attribution.findMany({ where: { orderId: body.order_id } });
    expect(lines.map((line) => line.newToBrand)).toEqual([true]);
  });

  it("takes no purchase from an order without proof the publisher does not credit: the shopper's later proven order is still new", async () => {
    const who = await teaShopper(otherShop);
    const unproven = await order(otherShop, who, [tea.products[0]!.sku], T, { proven: false });
    await attribute();
    const lines = await db.attribution.findMany({ where: { orderId: unproven } });
    // Attributed and kept, but neither credited nor new to the brand, and nothing in brand_purchases.
    expect(lines.map((line) => [line.credited, line.newToBrand])).toEqual([[false, false]]);
    const purchases = await db.brandPurchase.count({ where: { publisherId: otherShop.id, shopper: { in: [`user:${who.user}`] } } });
    expect(purchases).toBe(0);
    const proven = await order(otherShop, who, [tea.products[0]!.sku], T + HOUR);
    await attribute();
    expect(await newToBrand(proven, tea.products[0]!.sku)).toBe(true);
    expect((await db.attribution.findFirst({ where: { orderId: proven } }))!.credited).toBe(true);
  });

  it("reports new-to-brand orders, their sales and their share of conversions, the same on a recount", async () => {
    const day = new Date(T).toISOString().slice(0, 10);
    const query = {
      startDate: day,
      endDate: day,
      zone: "UTC",
      page: 1,
      perPage: 50,
      orderBy: "name" as const,
      order: "asc" as const,
      download: false,
      ids: {},
    };
    const scope = { advertiserId: tea.campaign.advertiserId, publisherIds: [shop.id], targetedPublisherIds: null };
    const row = (await store().reports.campaigns(scope, query).page(query)).data.find((r) => r.campaign_id === tea.campaign.id)!;
    // On T at the shop: 8 credited orders of 10.00 (one per test above, two in the edge test and
    // two in the last), of which new: the other-publisher test, the edge's older purchase, the
    // earlier of the two together.
    const credited = await db.attribution.findMany({ where: { campaignId: tea.campaign.id, publisherId: shop.id, credited: true } });
    expect(credited).toHaveLength(8);
    expect(row).toMatchObject({ conversions_total: 8, ntb_conversions: 3, ntb_sales_revenue: 30, ntb_rate: 3 / 8 });
    expect(credited.filter((a) => a.newToBrand)).toHaveLength(3);
    expect(await verifyRollups(day, day)).toEqual([]);
  });

  it("forgets a purchase once past the look-back and the 30 days an order may arrive late", async () => {
    const now = Date.now();
    const row = (ago: number, shopper: string) => ({
      publisherId: shop.id,
      advertiserId: coffee.campaign.advertiserId,
      shopper,
      firstPurchasedAt: new Date(now - ago - DAY_MS),
      lastPurchasedAt: new Date(now - ago),
    });
    const edge = LOOK_BACK_MS + 30 * DAY_MS;
    await db.brandPurchase.createMany({ data: [row(edge + 1, "user:gone"), row(edge - 1, "user:kept")] });
    expect(await dropExpiredBrandPurchases(new Date(now), env().TALLY_NEW_TO_BRAND_DAYS)).toBe(1);
    const left = await db.brandPurchase.findMany({ where: { advertiserId: coffee.campaign.advertiserId, shopper: { startsWith: "user:" } } });
    expect(left.map((r) => r.shopper)).toContain("user:kept");
    expect(left.map((r) => r.shopper)).not.toContain("user:gone");
  });
});
