// A publisher's plausibility limits at settle (docs/conversions.md, "Plausibility limits"): the
// largest order total and line quantity, Tally's defaults (TALLY_MAX_ORDER_TOTAL 100,000 and
// TALLY_MAX_LINE_QUANTITY 1,000) where it set none. Orders past them are set aside by rule, listed
// to operators and to the publisher, take nothing of a session's allowance, and the figures and
// their recount agree.

import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import type { Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { appendConversionBatch, orderToAppend } from "@/server/pipeline/accept/conversions/append-conversions.sql";
import { updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { accountOrdersSetAsideByRule } from "@/server/pipeline/report/account-stats";
import { store } from "@/server/store";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { postConversion } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher, today } from "@/testing/fixtures";
import { recordAndSettle, settleAll } from "@/testing/settle";
import { setAsideEvents } from "./set-aside-events";

const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: `${accountId}@limits.test`,
  name: accountId,
  role: "member",
  accountId,
  memberRole: "admin",
});

/** A publisher whose checkout sends orders unsigned (it credits them), with a click on its campaign. */
async function clickedShop() {
  const publisher = await makePublisher({ creditUnverified: true });
  const advertiser = await makeAdvertiser({ wallet: 100 });
  const sku = `SKU-${randomUUID()}`;
  const made = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: "cpc",
    bid: 1,
    products: [{ sku, name: "Beans" }],
  });
  const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
  const at = new Date(Date.now() - 10 * 60_000);
  await recordAndSettle({
    claims: servedClaims({ ...made, publisher }, shopper.session, { kind: "click", at }),
    body: { session_id: shopper.session, user_id: shopper.user },
    userAgent: CHROME,
    now: at,
  });
  return { publisher, advertiser, sku, shopper, ...made };
}
type Shop = Awaited<ReturnType<typeof clickedShop>>;

const order = (s: Shop, lines: { quantity: number; price: number }[], sameSku = false) => ({
  publisher_id: s.publisher.id,
  user_id: s.shopper.user,
  session_id: s.shopper.session,
  order_id: `o-${randomUUID()}`,
  created_at: new Date(Date.now() - 60_000).toISOString(),
  channel: "web",
  email_hashed: "e".repeat(64),
  items: lines.map((line, i) => ({
    sku: i === 0 || sameSku ? s.sku : `${s.sku}-${i}`,
    quantity: line.quantity,
    price: line.price,
    promotional_price: line.price,
  })),
});
/** The largest order the schema takes: 500 lines of the campaign's SKU, each 10,000 units at 1,000,000: 5 × 10^12 in all. */
const largest = (s: Shop) =>
  order(
    s,
    Array.from({ length: 500 }, () => ({ quantity: 10_000, price: 1_000_000 })),
    true,
  );

const setAsideRule = async (orderId: string) =>
  (await db.$queryRaw<{ rule: string | null }[]>`SELECT rule FROM settle_set_aside WHERE order_id = ${orderId}`).map((r) => r.rule);
const storedCount = (orderId: string) => db.conversion.count({ where: { orderId } });
const sales = async (advertiserId: string) =>
  (await db.dailyCampaignTotal.findMany({ where: { advertiserId } })).reduce((sum, r) => sum + Number(r.salesRevenueMicros), 0) / 1e6;

describe("the default plausibility limits", () => {
  it("set aside the three largest orders a shopper who clicked can send; the brand's sales stay as they were", async () => {
    const s = await clickedShop();
    const orders = [largest(s), largest(s), largest(s)];
    for (const body of orders) expect((await postConversion(body)).status).toBe(202);
    await attributePendingConversions({ settleMs: 0 });
    for (const body of orders) {
      expect(await setAsideRule(body.order_id)).toEqual(["order_total_limit"]);
      expect(await storedCount(body.order_id)).toBe(0);
    }
    expect(await sales(s.advertiser.id)).toBe(0);
    const [reason] = await db.$queryRaw<{ reason: string }[]>`SELECT reason FROM settle_set_aside WHERE order_id = ${orders[0]!.order_id}`;
    expect(reason!.reason).toBe("the order's total, 5,000,000,000,000, is above the publisher's largest order total, 100,000");
    // A plausible order of the same shopper afterwards is credited as ever.
    const plausible = order(s, [{ quantity: 2, price: 25 }]);
    expect((await postConversion(plausible)).status).toBe(202);
    await attributePendingConversions({ settleMs: 0 });
    expect(await sales(s.advertiser.id)).toBe(50);
    expect(await store().rollups.verify(today(), today())).toEqual([]);
  });

  it("keep an order at the limits and set aside one just past either", async () => {
    const s = await clickedShop();
    const atLimits = order(s, [
      { quantity: 1_000, price: 50 },
      { quantity: 1, price: 50_000 },
    ]);
    const pastTotal = order(s, [
      { quantity: 1_000, price: 50 },
      { quantity: 1, price: 50_000.01 },
    ]);
    const pastQuantity = order(s, [{ quantity: 1_000.5, price: 0.01 }]);
    for (const body of [atLimits, pastTotal, pastQuantity]) expect((await postConversion(body)).status).toBe(202);
    expect(await storedCount(atLimits.order_id)).toBe(1);
    expect(await setAsideRule(pastTotal.order_id)).toEqual(["order_total_limit"]);
    expect(await setAsideRule(pastQuantity.order_id)).toEqual(["line_quantity_limit"]);
    const [reason] = await db.$queryRaw<{ reason: string }[]>`SELECT reason FROM settle_set_aside WHERE order_id = ${pastQuantity.order_id}`;
    expect(reason!.reason).toBe(`line 1 (${s.sku}) has a quantity of 1,000.5, above the publisher's largest line quantity, 1,000`);
    const intake = await db.publisherDailyIntake.findMany({ where: { publisherId: s.publisher.id } });
    expect(intake.reduce((sum, r) => sum + Number(r.setAside), 0)).toBe(2);
    expect(intake.reduce((sum, r) => sum + Number(r.orders), 0)).toBe(1);
  });
});

describe("a publisher's own limits", () => {
  it("replace the defaults from the next settled order on, either way", async () => {
    const s = await clickedShop();
    await updateConversionTrust({
      actor: member(s.publisher.id),
      publisherId: s.publisher.id,
      creditUnverified: true,
      maxOrderTotal: 5e12,
      maxLineQuantity: 10_000,
    });
    const wholesale = largest(s);
    expect((await postConversion(wholesale)).status).toBe(202);
    expect(await storedCount(wholesale.order_id)).toBe(1);
    await updateConversionTrust({ actor: OPERATOR, publisherId: s.publisher.id, creditUnverified: true, maxOrderTotal: 10, maxLineQuantity: 2 });
    const small = order(s, [{ quantity: 3, price: 1 }]);
    const smallTotal = order(s, [{ quantity: 2, price: 5.5 }]);
    for (const body of [small, smallTotal]) expect((await postConversion(body)).status).toBe(202);
    expect(await setAsideRule(small.order_id)).toEqual(["line_quantity_limit"]);
    expect(await setAsideRule(smallTotal.order_id)).toEqual(["order_total_limit"]);
    // Back to Tally's defaults.
    await updateConversionTrust({ actor: OPERATOR, publisherId: s.publisher.id, creditUnverified: true, maxOrderTotal: null, maxLineQuantity: null });
    const again = order(s, [{ quantity: 3, price: 5.5 }]);
    expect((await postConversion(again)).status).toBe(202);
    expect(await storedCount(again.order_id)).toBe(1);
  });

  it("are the publisher's members' and staff's to change; other accounts reach nothing, and the form's bounds hold", async () => {
    const s = await clickedShop();
    const input = { publisherId: s.publisher.id, creditUnverified: true, maxOrderTotal: 500, maxLineQuantity: 10 };
    for (const actor of [member(s.advertiser.id), member((await makePublisher()).id)]) {
      await expect(updateConversionTrust({ ...input, actor })).rejects.toMatchObject({ code: "not_found", message: "no such account" });
    }
    await expect(updateConversionTrust({ ...input, publisherId: s.advertiser.id, actor: OPERATOR })).rejects.toMatchObject({ code: "bad_request" });
    await expect(updateConversionTrust({ ...input, maxOrderTotal: 5e12 + 1, actor: OPERATOR })).rejects.toThrow(/at most 5,000,000,000,000/);
    await expect(updateConversionTrust({ ...input, maxLineQuantity: 0, actor: OPERATOR })).rejects.toThrow(/above 0/);
    expect(await updateConversionTrust({ ...input, actor: member(s.publisher.id) })).toMatchObject({
      creditUnverified: true,
      maxOrderTotal: 500,
      maxLineQuantity: 10,
      defaults: { maxOrderTotal: 100_000, maxLineQuantity: 1_000 },
    });
  });
});

describe("orders set aside by the limits", () => {
  it("take nothing of the session's allowance, and are listed to operators and to the publisher but not to an advertiser", async () => {
    const s = await clickedShop();
    // More implausible orders than a session may place in a day (20), then that many plausible ones.
    const implausible = Array.from({ length: 21 }, () => order(s, [{ quantity: 2_000, price: 1 }]));
    const plausible = Array.from({ length: 20 }, () => order(s, [{ quantity: 1, price: 1 }]));
    for (const body of [...implausible, ...plausible]) expect((await postConversion(body, { settle: false })).status).toBe(202);
    await settleAll();
    expect(await db.conversion.count({ where: { publisherId: s.publisher.id } })).toBe(20);

    const range = { startDate: today(), endDate: today() };
    const own = await accountOrdersSetAsideByRule({ actor: member(s.publisher.id), ...range });
    expect(own).toMatchObject({ total: 21, byRule: { line_quantity_limit: 21 } });
    expect(own.latest).toHaveLength(20);
    expect(own.latest.every((o) => o.publisher_id === s.publisher.id && o.rule === "line_quantity_limit")).toBe(true);
    expect(await accountOrdersSetAsideByRule({ actor: member(s.advertiser.id), ...range })).toEqual({ total: 0, byRule: {}, latest: [] });
    await expect(accountOrdersSetAsideByRule({ actor: member(s.advertiser.id), accountId: s.publisher.id, ...range })).rejects.toMatchObject({
      code: "not_found",
    });
    const operators = await setAsideEvents(range, 1000);
    const listed = operators.latest.find((e) => e.order_id === implausible[0]!.order_id);
    expect(listed).toMatchObject({ kind: "conversion", publisher_id: s.publisher.id, rule: "line_quantity_limit" });
  });

  it("are judged on the lines of an order logged before totals were, as on those of any other", async () => {
    const s = await clickedShop();
    const base = {
      publisher_id: s.publisher.id,
      user_id: "u",
      session_id: `legacy-${randomUUID()}`,
      channel: "web",
      site: s.publisher.sites[0]!.name,
      placed_at: new Date(),
      gender: null,
      uf: null,
      city: null,
      is_company: null,
      email_hashed: "e".repeat(64),
      phone_hashed: null,
      social_id_hashed: null,
      first_name_hashed: null,
      last_name_hashed: null,
      received_at: null,
    };
    const legacy = (orderId: string, micros: number) =>
      // What an older version logged: no verified_by, no total_micros.
      orderToAppend({
        ...base,
        event_id: randomUUID(),
        order_id: orderId,
        items: [{ sku: s.sku, product_id: null, seller_id: null, quantity: 2, price_micros: micros, promotional_price_micros: micros }],
      } as unknown as Parameters<typeof orderToAppend>[0]);
    await appendConversionBatch([legacy("legacy-small", 50_000_000_000), legacy("legacy-large", 50_000_000_001)]);
    await settleAll();
    expect(await db.conversion.findMany({ where: { orderId: "legacy-small" }, select: { verifiedBy: true, credited: true } })).toEqual([
      { verifiedBy: null, credited: true },
    ]);
    expect(await setAsideRule("legacy-large")).toEqual(["order_total_limit"]);
  });
});
