// One file over 300 lines on purpose: the two proofs of an order, their refusals, rotation, and
// what a publisher's requirement does to the figures, all over the same shopper and campaign.
// Verified orders (docs/conversions.md): a server sends the publisher's API key, or a browser
// carries a token the publisher's server signed. Unverified orders are kept and counted apart, and
// never credited unless the publisher credits orders without proof (off by default); a verified copy of an order replaces an
// unverified one sent before it; and the report rows agree with a recount after all of it.

import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { orderTokenMessage, orderTotalMicros } from "@/contracts/order-token";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey, revokeApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { db } from "@/server/db/client";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { store } from "@/server/store";
import { handleAdvertiserReport, handlePublisherReport } from "@/testing/api/checked-report-routes";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { postConversion } from "@/testing/events-client";
import { daysFromToday, makeAdvertiser, makeCampaignWithAd, makePublisher, today } from "@/testing/fixtures";
import { get } from "@/testing/report-fixture";
import { recordAndSettle, settleAll } from "@/testing/settle";
import { signOrderToken } from "./order-proof";
import { recordConversion } from "./record-conversion";
import { rotateSigningSecret } from "./signing-secrets";

const HOUR = 3_600_000;
type Publisher = Awaited<ReturnType<typeof makePublisher>>;
type Campaign = Awaited<ReturnType<typeof makeCampaignWithAd>>;

interface Shop {
  publisher: Publisher;
  campaign: Campaign;
  sku: string;
  key: string;
  shopper: { session: string; user: string };
}

let advertiserKey: string;
let strict: Shop;
let lenient: Shop;

/**
 * A publisher whose campaign (of the shared advertiser) the shopper clicked ten minutes ago;
 * `creditUnverified`: it opted in to credit orders without proof (left at the default otherwise).
 */
async function shop(advertiserId: string, creditUnverified: boolean): Promise<Shop> {
  const publisher = await makePublisher({ creditUnverified });
  const sku = `SKU-${randomUUID()}`;
  const campaign = await makeCampaignWithAd({ advertiserId, publisherIds: [publisher.id], bidModel: "cpc", bid: 1, products: [{ sku, name: "Beans" }] });
  const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
  const clickedAt = new Date(Date.now() - 10 * 60_000);
  const click = await recordAndSettle({
    claims: servedClaims({ ...campaign, publisher }, shopper.session, { kind: "click", at: clickedAt }),
    body: { session_id: shopper.session, user_id: shopper.user },
    userAgent: CHROME,
    now: clickedAt,
  });
  expect(click.status).toBe("counted");
  const key = (await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "checkout server" })).key;
  return { publisher, campaign, sku, key, shopper };
}

beforeAll(async () => {
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  advertiserKey = (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "reports" })).key;
  strict = await shop(advertiser.id, false);
  lenient = await shop(advertiser.id, true);
});

function order(s: Shop, items: { quantity: number; promotional_price: number }[] = [{ quantity: 2, promotional_price: 19.9 }], extra: object = {}) {
  return {
    publisher_id: s.publisher.id,
    user_id: s.shopper.user,
    session_id: s.shopper.session,
    order_id: `order-${randomUUID()}`,
    created_at: new Date(Date.now() - 60_000).toISOString(),
    channel: "web",
    email_hashed: createHash("sha256").update("shopper@example.com").digest("hex"),
    items: items.map((item) => ({ sku: s.sku, price: item.promotional_price, ...item })),
    ...extra,
  };
}
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const stored = (publisherId: string, orderId: string) =>
  db.conversion.findMany({ where: { publisherId, orderId }, select: { verifiedBy: true, credited: true }, orderBy: { receivedAt: "asc" } });
const logged = async (orderId: string) =>
  (await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM conversion_log WHERE conversion->>'order_id' = ${orderId}`)[0]!.n +
  (await db.orderReceipt.count({ where: { orderId } }));

describe("verified by the publisher's API key", () => {
  it("a server-to-server order with the publisher's own key is stored as verified and credited", async () => {
    const body = order(strict);
    const answer = await postConversion(body, { headers: bearer(strict.key) });
    expect(answer).toMatchObject({ status: 202, body: { verified: true, messages: ["The conversion was received and will be processed soon."] } });
    expect(await stored(strict.publisher.id, body.order_id)).toEqual([{ verifiedBy: "api_key", credited: true }]);
  });

  it("another account's key is a 403 and an invalid, malformed or revoked key a 401; neither stores anything", async () => {
    const other = await makePublisher();
    const otherKey = (await createApiKey({ actor: OPERATOR, accountId: other.id, name: "theirs" })).key;
    const revoked = await createApiKey({ actor: OPERATOR, accountId: strict.publisher.id, name: "old" });
    await revokeApiKey({ actor: OPERATOR, keyId: revoked.id });
    const attempts: [Record<string, string>, number][] = [
      [bearer(otherKey), 403],
      [bearer(advertiserKey), 403],
      [bearer(`tly_${"x".repeat(32)}`), 401],
      [bearer(revoked.key), 401],
      [{ Authorization: strict.key }, 401],
      [{ Authorization: "Bearer " }, 401],
    ];
    for (const [headers, status] of attempts) {
      const body = order(strict);
      const answer = await postConversion(body, { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      if (status === 401) expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="tally"');
      expect(answer.body).toMatchObject({ error: { code: status === 401 ? "unauthorized" : "forbidden" } });
      expect(await logged(body.order_id)).toBe(0);
    }
    // The 403 comes before the body is validated: another account's key learns nothing of the publisher's rules.
    expect((await postConversion({ publisher_id: strict.publisher.id }, { headers: bearer(otherKey) })).status).toBe(403);
  });

  it("a network's key does not verify its sub-publishers' orders", async () => {
    const network = await createAccount({ actor: OPERATOR, kind: "network", name: "Network", sites: [] });
    const sub = await makePublisher({ networkId: network.id });
    const networkKey = (await createApiKey({ actor: OPERATOR, accountId: network.id, name: "network" })).key;
    const body = { ...order(strict), publisher_id: sub.id, brand: undefined };
    expect((await postConversion(body, { headers: bearer(networkKey) })).status).toBe(403);
    expect(await logged(body.order_id)).toBe(0);
  });
});

describe("verified by an order token", () => {
  let secret: string;
  beforeAll(async () => {
    secret = (await rotateSigningSecret({ actor: OPERATOR, publisherId: strict.publisher.id })).secret;
  });

  it("a token over the order id and its total verifies it, in either case of hex", async () => {
    const body = order(strict, [
      { quantity: 2, promotional_price: 19.9 },
      { quantity: 1.5, promotional_price: 0.1 },
    ]);
    expect(orderTotalMicros(body.items)).toBe(39_950_000n);
    expect(orderTokenMessage(body.order_id, 39_950_000n)).toBe(`${body.order_id}\n39950000`);
    const token = signOrderToken(secret, body.order_id, 39_950_000n);
    const answer = await postConversion({ ...body, order_token: token.toUpperCase() });
    expect(answer).toMatchObject({ status: 202, body: { verified: true } });
    expect(await stored(strict.publisher.id, body.order_id)).toEqual([{ verifiedBy: "order_token", credited: true }]);
  });

  it("a wrong token, or one signed for another total or order id, leaves the order unverified and says why; a malformed one is a 422", async () => {
    const cases: [string, (copy: { order_id: string; items: { quantity: number; promotional_price: number }[] }) => string][] = [
      ["random", () => "ab".repeat(32)],
      ["another total", (copy) => signOrderToken(secret, copy.order_id, orderTotalMicros(copy.items) + 1n)],
      ["another order id", (copy) => signOrderToken(secret, `${copy.order_id}-x`, orderTotalMicros(copy.items))],
      ["another secret", (copy) => signOrderToken(`tss_${"A".repeat(43)}`, copy.order_id, orderTotalMicros(copy.items))],
    ];
    for (const [what, tokenFor] of cases) {
      const copy = order(strict);
      const answer = await postConversion({ ...copy, order_token: tokenFor(copy) });
      expect(answer.status, what).toBe(202);
      expect(answer.body, what).toMatchObject({
        verified: false,
        messages: [expect.any(String), expect.stringMatching(/^order_token does not verify this order/)],
      });
      expect(await stored(strict.publisher.id, copy.order_id), what).toEqual([{ verifiedBy: null, credited: false }]);
    }
    // Fields that name a proof in the body are ignored like any unknown property.
    const claims = order(strict, undefined, { verified_by: "api_key", verified: true, credited: true, total_micros: "1" });
    expect((await postConversion(claims)).body).toMatchObject({ verified: false });
    expect(await stored(strict.publisher.id, claims.order_id)).toEqual([{ verifiedBy: null, credited: false }]);
    const malformed = await postConversion({ ...order(strict), order_token: "not-hex" });
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual([
      {
        instancePath: "/order_token",
        schemaPath: "#/properties/order_token/pattern",
        keyword: "pattern",
        params: { pattern: "^[0-9a-fA-F]{64}$" },
        message: 'must match pattern "^[0-9a-fA-F]{64}$"',
      },
    ]);
    // A publisher without a secret verifies no token.
    const plain = order(lenient);
    const answer = await postConversion({ ...plain, order_token: "ab".repeat(32) });
    expect(answer.body).toMatchObject({ verified: false, messages: [expect.any(String), expect.stringContaining("the publisher has no signing secret")] });
  });

  it("a rotated secret verifies through its grace period and not after; a secret stopped at once verifies nothing", async () => {
    const publisher = await makePublisher();
    const first = (await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id })).secret;
    const rotatedAt = Date.now();
    const rotated = await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id });
    expect(rotated.previous?.retiresAt?.getTime()).toBeGreaterThanOrEqual(rotatedAt + 72 * HOUR);
    const signed = (secret: string, at: Date) => {
      const body = { ...order({ ...lenient, publisher }), created_at: new Date(at.getTime() - 60_000).toISOString() };
      return { ...body, order_token: signOrderToken(secret, body.order_id, orderTotalMicros(body.items)) };
    };
    const inGrace = new Date(rotatedAt + 71 * HOUR);
    const pastGrace = new Date(rotatedAt + 73 * HOUR);
    expect((await recordConversion(signed(first, inGrace), inGrace)).verified).toBe(true);
    expect((await recordConversion(signed(rotated.secret, inGrace), inGrace)).verified).toBe(true);
    expect((await recordConversion(signed(first, pastGrace), pastGrace)).verified).toBe(false);
    expect((await recordConversion(signed(rotated.secret, pastGrace), pastGrace)).verified).toBe(true);

    const leaked = await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id, retirePreviousNow: true });
    expect(leaked.previous).toBeNull();
    const now = new Date();
    expect((await recordConversion(signed(rotated.secret, now), now)).verified).toBe(false);
    expect((await recordConversion(signed(leaked.secret, now), now)).verified).toBe(true);
    // Two rotations in a row keep at most two secrets live: the one replaced before goes at once.
    await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id });
    const third = await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id });
    expect(await db.conversionSigningSecret.count({ where: { publisherId: publisher.id } })).toBe(2);
    expect((await recordConversion(signed(leaked.secret, now), now)).verified).toBe(false);
    expect((await recordConversion(signed(third.secret, now), now)).verified).toBe(true);
    await settleAll();
  });

  it("a secret this server cannot decrypt verifies nothing, and the order is still kept", async () => {
    const publisher = await makePublisher();
    const { secret: made, current } = await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id });
    // Its ciphertext moved onto another row id: the associated data no longer matches.
    await db.conversionSigningSecret.update({ where: { id: current.id }, data: { id: `${current.id}x` } });
    const body = order({ ...lenient, publisher });
    const answer = await postConversion({ ...body, order_token: signOrderToken(made, body.order_id, orderTotalMicros(body.items)) });
    expect(answer).toMatchObject({ status: 202, body: { verified: false } });
    // Kept, unverified, and so not credited: the publisher keeps the default.
    expect(await stored(publisher.id, body.order_id)).toEqual([{ verifiedBy: null, credited: false }]);
  });

  it("stores only ciphertext, never the secret, and the token's secret is another publisher's for nobody", async () => {
    const rows = await db.conversionSigningSecret.findMany({ where: { publisherId: strict.publisher.id } });
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.secretCiphertext).toString("latin1")).not.toContain(secret.slice(4));
    expect(rows[0]!.prefix).toBe(secret.slice(0, 10));
    // The strict publisher's token does not verify the lenient publisher's order.
    const body = order(lenient);
    const answer = await postConversion({ ...body, order_token: signOrderToken(secret, body.order_id, orderTotalMicros(body.items)) });
    expect(answer.body).toMatchObject({ verified: false });
  });
});

describe("a publisher that credits only proven orders (the default)", () => {
  it("keeps an unverified copy sent first apart, and still credits the verified order of the same id", async () => {
    const body = order(strict);
    expect((await postConversion(body)).body).toMatchObject({ verified: false });
    expect((await postConversion(body, { headers: bearer(strict.key) })).body).toMatchObject({
      verified: true,
      messages: ["The conversion was received and will be processed soon."],
    });
    // A third copy is a repeat of the verified one.
    expect((await postConversion(body, { headers: bearer(strict.key) })).body).toMatchObject({ messages: [expect.stringMatching(/already received/)] });
    expect(await stored(strict.publisher.id, body.order_id)).toEqual([
      { verifiedBy: null, credited: false },
      { verifiedBy: "api_key", credited: true },
    ]);
    // Where orders without proof are credited, the first copy keeps the order id.
    const lenientBody = order(lenient);
    await postConversion(lenientBody);
    expect((await postConversion(lenientBody, { headers: bearer(lenient.key) })).body).toMatchObject({ messages: [expect.stringMatching(/already received/)] });
  });

  it("counts unverified orders apart in the reports and never credits them; key- and token-verified orders are credited", async () => {
    await attributePendingConversions({ settleMs: 0 });
    const before = await figures();
    // Two anonymous orders of 100.00 each (5 × 20.00): unverified, not credited.
    for (let i = 0; i < 2; i += 1) expect((await postConversion(order(strict, [{ quantity: 5, promotional_price: 20 }]))).status).toBe(202);
    // One by key (30.00) and one by token (12.50): credited.
    expect((await postConversion(order(strict, [{ quantity: 1, promotional_price: 30 }]), { headers: bearer(strict.key) })).body).toMatchObject({
      verified: true,
    });
    const secret = (await rotateSigningSecret({ actor: OPERATOR, publisherId: strict.publisher.id })).secret;
    const byToken = order(strict, [{ quantity: 1, promotional_price: 12.5 }]);
    const token = signOrderToken(secret, byToken.order_id, 12_500_000n);
    expect((await postConversion({ ...byToken, order_token: token })).body).toMatchObject({ verified: true });
    // An anonymous order on the publisher that opted in (7.00): credited, and unverified.
    expect((await postConversion(order(lenient, [{ quantity: 1, promotional_price: 7 }]))).status).toBe(202);
    await attributePendingConversions({ settleMs: 0 });

    const after = await figures();
    expect(diff(after.strict, before.strict)).toEqual({
      conversions_total: 2,
      sales_revenue: 42.5,
      unverified_conversions: 2,
      unverified_sales_revenue: 200,
      uncredited_conversions: 2,
      uncredited_sales_revenue: 200,
    });
    expect(diff(after.lenient, before.lenient)).toEqual({
      conversions_total: 1,
      sales_revenue: 7,
      unverified_conversions: 1,
      unverified_sales_revenue: 7,
      uncredited_conversions: 0,
      uncredited_sales_revenue: 0,
    });
    // ROAS is sales over spend, the uncredited sales left out: one click at 1.00 on each publisher.
    expect(after.strict.roas).toBeCloseTo(after.strict.sales_revenue / after.strict.ad_revenue, 9);
    expect(after.strict.ad_revenue).toBe(1);
    // The advertiser's own row over both publishers adds the two up.
    expect(diff(after.advertiser, before.advertiser)).toEqual({
      conversions_total: 3,
      sales_revenue: 49.5,
      unverified_conversions: 3,
      unverified_sales_revenue: 207,
      uncredited_conversions: 2,
      uncredited_sales_revenue: 200,
    });
    const items = await db.attribution.findMany({ where: { publisherId: strict.publisher.id }, select: { verified: true, credited: true } });
    expect(items.filter((i) => !i.credited).every((i) => !i.verified)).toBe(true);
    expect(await store().rollups.verify(today(), today())).toEqual([]);
  });
});

const FIELDS = [
  "conversions_total",
  "sales_revenue",
  "unverified_conversions",
  "unverified_sales_revenue",
  "uncredited_conversions",
  "uncredited_sales_revenue",
] as const;
type Row = Record<(typeof FIELDS)[number] | "roas" | "ad_revenue", number>;
const diff = (after: Row, before: Row) => Object.fromEntries(FIELDS.map((f) => [f, Math.round((after[f] - before[f]) * 1e6) / 1e6]));

/** The publisher report's rows (as the advertiser sees them) for the two publishers, and the advertiser's own row, today. */
async function figures(): Promise<{ strict: Row; lenient: Row; advertiser: Row }> {
  // From yesterday, so a run that crosses midnight UTC still holds the click made ten minutes before.
  const range = `start_date=${daysFromToday(-1)}&end_date=${today()}`;
  const publishers = await get(advertiserKey, range, handlePublisherReport);
  const row = (id: string) => publishers.body.data.find((r) => r.publisher_id === id) as unknown as Row;
  const advertiser = (await get(advertiserKey, range, handleAdvertiserReport)).body.data[0] as unknown as Row;
  // A publisher sees the same figures for itself.
  const own = (await get(strict.key, range, handlePublisherReport)).body.data[0] as unknown as Row;
  expect(FIELDS.map((f) => own[f])).toEqual(FIELDS.map((f) => row(strict.publisher.id)[f]));
  return { strict: row(strict.publisher.id), lenient: row(lenient.publisher.id), advertiser };
}
