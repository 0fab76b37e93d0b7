// Only proven orders move a brand's figures (docs/decisions/0050-proven-orders-credit-by-default.md).
// As found: one shopper session, a click at 0.40, then 20 orders of one line at 99,999 each from
// the browser with no proof, all credited, made the brand's day read sales_revenue 1,999,980 and
// ROAS 2,499,975. By default they are kept and shown as unverified, and move no other figure
// (conversions, sales, ROAS, CPA, ACoS, click credit, halo, new-to-brand); a publisher that opts in
// credits them; a proven order is credited either way, and is still new to the brand.

import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { orderTotalMicros } from "@/contracts/order-token";
import { OPERATOR } from "@/server/accounts/actor";
import { setCatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { db } from "@/server/db/client";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { accountStats } from "@/server/pipeline/report/account-stats";
import { store } from "@/server/store";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { postConversion } from "@/testing/events-client";
import { daysFromToday, makeAdvertiser, makeCampaignWithAd, makePublisher, today } from "@/testing/fixtures";
import { recordAndSettle } from "@/testing/settle";
import { signOrderToken } from "./order-proof";
import { rotateSigningSecret } from "./signing-secrets";

/** A publisher and a brand's CPC campaign at 0.40 of one SKU, with a second SKU of the brand in the publisher's catalogue (halo). */
async function shop({ creditUnverified }: { creditUnverified: boolean }) {
  const publisher = await makePublisher({ creditUnverified });
  const advertiser = await makeAdvertiser({ wallet: 100 });
  const sku = `BEANS-${randomUUID()}`;
  const haloSku = `FILTERS-${randomUUID()}`;
  const campaign = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: "cpc",
    bid: 0.4,
    products: [{ sku, name: "Beans" }],
  });
  await setCatalogueEntry({ actor: OPERATOR, publisherId: publisher.id, sku: haloSku, advertiserId: advertiser.id });
  const secret = (await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id })).secret;
  return { publisher, advertiser, campaign, sku, haloSku, secret };
}
type Shop = Awaited<ReturnType<typeof shop>>;

/** A shopper who clicked the campaign's ad ten minutes ago. */
async function shopperWhoClicked(s: Shop) {
  const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
  const at = new Date(Date.now() - 10 * 60_000);
  const click = await recordAndSettle({
    claims: servedClaims({ ...s.campaign, publisher: s.publisher }, shopper.session, { kind: "click", at }),
    body: { session_id: shopper.session, user_id: shopper.user },
    userAgent: CHROME,
    now: at,
  });
  expect(click.status).toBe("counted");
  return shopper;
}

const order = (s: Shop, shopper: { session: string; user: string }, lines: { sku: string; price: number }[]) => ({
  publisher_id: s.publisher.id,
  user_id: shopper.user,
  session_id: shopper.session,
  order_id: `o-${randomUUID()}`,
  created_at: new Date(Date.now() - 60_000).toISOString(),
  channel: "web",
  email_hashed: createHash("sha256").update(`${shopper.user}@example.com`).digest("hex"),
  items: lines.map((line) => ({ sku: line.sku, quantity: 1, price: line.price, promotional_price: line.price })),
});
type Order = ReturnType<typeof order>;

/** The order as the publisher's server signs it for the page: with its order token. */
const signed = (s: Shop, body: Order) => ({ ...body, order_token: signOrderToken(s.secret, body.order_id, orderTotalMicros(body.items)) });

async function postAll(bodies: object[], verified: boolean) {
  for (const body of bodies) expect((await postConversion(body)).body).toMatchObject({ verified });
  await attributePendingConversions({ settleMs: 0 });
}

/** The brand's figures over today (from yesterday, so a run that crosses midnight UTC still holds the click). */
const brandFigures = async (s: Shop) =>
  (await accountStats({ actor: OPERATOR, accountId: s.advertiser.id, startDate: daysFromToday(-1), endDate: today() })).total;

/** One session's click, then the 20 orders of 99,999 its daily allowance lets it send, without proof. */
async function theFinding(s: Shop) {
  const shopper = await shopperWhoClicked(s);
  const orders = Array.from({ length: 20 }, () => order(s, shopper, [{ sku: s.sku, price: 99_999 }]));
  await postAll(orders, false);
  return shopper;
}

describe("orders without proof", () => {
  it("are kept and shown as unverified but move none of the brand's figures, by default", async () => {
    const s = await shop({ creditUnverified: false });
    const shopper = await theFinding(s);
    // An order of the brand's other SKU alone, from another shopper who clicked: halo, were it credited.
    await postAll([order(s, await shopperWhoClicked(s), [{ sku: s.haloSku, price: 12 }])], false);

    expect(await brandFigures(s)).toMatchObject({
      clicks_total: 2,
      ad_revenue: 0.8,
      conversions_total: 0,
      sales_revenue: 0,
      roas: 0,
      cpa: null,
      acos: null,
      conversions_click: 0,
      sales_revenue_click: 0,
      units_sold: 0,
      converted_clicks: 0,
      halo_conversions: 0,
      halo_sales_revenue: 0,
      ntb_conversions: 0,
      unverified_conversions: 20,
      unverified_sales_revenue: 1_999_980,
      uncredited_conversions: 20,
      uncredited_sales_revenue: 1_999_980,
    });
    // Attributed and kept, every line uncredited; no purchase of the brand recorded for the shopper.
    const lines = await db.attribution.findMany({ where: { publisherId: s.publisher.id }, select: { credited: true, newToBrand: true, match: true } });
    expect(lines).toHaveLength(21);
    expect(lines.every((line) => !line.credited && !line.newToBrand)).toBe(true);
    expect(await db.brandPurchase.count({ where: { publisherId: s.publisher.id } })).toBe(0);

    // The same shopper's proven order (signed by the publisher's server) is credited, converts the
    // click and is new to the brand: the twenty before it were no purchase.
    const proven = signed(s, order(s, { ...shopper, session: `${shopper.session}-next` }, [{ sku: s.sku, price: 30 }]));
    await postAll([proven], true);
    expect(await brandFigures(s)).toMatchObject({
      conversions_total: 1,
      sales_revenue: 30,
      roas: 37.5,
      cpa: 0.8,
      conversions_click: 1,
      converted_clicks: 1,
      ntb_conversions: 1,
      ntb_sales_revenue: 30,
      halo_conversions: 0,
      unverified_conversions: 20,
      uncredited_conversions: 20,
    });
    expect(await store().rollups.verify(today(), today())).toEqual([]);
  });

  it("are credited, and still shown as unverified, for a publisher that opts in", async () => {
    const s = await shop({ creditUnverified: true });
    await theFinding(s);
    await postAll([order(s, await shopperWhoClicked(s), [{ sku: s.haloSku, price: 12 }])], false);
    expect(await brandFigures(s)).toMatchObject({
      ad_revenue: 0.8,
      conversions_total: 20,
      sales_revenue: 1_999_980,
      roas: 2_499_975,
      converted_clicks: 1,
      halo_conversions: 1,
      halo_sales_revenue: 12,
      unverified_conversions: 20,
      unverified_sales_revenue: 1_999_980,
      uncredited_conversions: 0,
    });
    expect(await store().rollups.verify(today(), today())).toEqual([]);
  });

  it("lose to a proven copy of the same order id, which is credited", async () => {
    const s = await shop({ creditUnverified: false });
    const shopper = await shopperWhoClicked(s);
    const body = order(s, shopper, [{ sku: s.sku, price: 20 }]);
    // The unsigned copy arrives first (an order id is easy to guess); the signed one still counts.
    await postAll([body], false);
    await postAll([signed(s, body)], true);
    const copies = await db.conversion.findMany({
      where: { orderId: body.order_id },
      select: { verifiedBy: true, credited: true },
      orderBy: { receivedAt: "asc" },
    });
    expect(copies).toEqual([
      { verifiedBy: null, credited: false },
      { verifiedBy: "order_token", credited: true },
    ]);
    expect(await brandFigures(s)).toMatchObject({ conversions_total: 1, sales_revenue: 20, unverified_conversions: 1, uncredited_conversions: 1 });
  });
});
