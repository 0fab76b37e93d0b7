// One file over 300 lines on purpose: the traffic's whole story in one place (its days, local midnights and orders), so what the reports must show can be read off it.
// Traffic for comparing the two stores' reports (store/clickhouse/report-parity.ch.int.test.ts):
// every kind of row a report counts, through the real intake, settling and attribution. Three
// advertisers (one with no traffic at all), two direct publishers (one crediting only proven
// orders, the default), a network with two sub-publishers, three days; counted, duplicate, bot, no-user-agent,
// session-mismatch, token-reuse and click-velocity beacons; verified, unverified and uncredited
// orders, orders crediting two advertisers, and orders credited on a later day than their click;
// orders credited to clicks, to views and impressions alone, and to both, a click credited by
// orders of two days, and fractional quantities (one whose millionths end in a half); halo lines
// (a SKU the publishers' catalogues give acme, which none of its campaigns sells) in a credited
// order with lines of acme's own, in an order of nothing else, and in an uncredited order;
// new-to-brand orders (a shopper's first of a brand at a publisher) and repeat purchases, known
// by the same user id or, for a guest checkout, by the same hashed e-mail alone.
import { createHash, randomUUID } from "node:crypto";
import { OPERATOR } from "@/server/accounts/actor";
import { authenticateApiKey, createApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { createAd } from "@/server/campaigns/create-ad";
import { setCatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, type ServedTarget, servedClaims } from "./beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "./fixtures";
import { settleAll } from "./settle";

export const PARITY_DAYS = ["2026-11-09", "2026-11-10", "2026-11-11"] as const;
const BOT = "Googlebot/2.1 (+http://www.google.com/bot.html)";

const at = (day: string, hour: number, minute = 0, second = 0) =>
  new Date(`${day}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:${String(second).padStart(2, "0")}Z`);

interface Shot {
  kind?: EventKind;
  /** The shopper: session and user (the user attributes orders). */
  session: string;
  user?: string;
  when: Date;
  userAgent?: string | null;
  /** The session the body claims, when it differs from the token's (session mismatch). */
  bodySession?: string;
  clientHash?: string;
  requestId?: string;
}

async function shoot(target: ServedTarget, shot: Shot): Promise<void> {
  await recordBeacon({
    claims: servedClaims(target, shot.session, {
      kind: shot.kind ?? "impression",
      at: shot.when,
      requestId: shot.requestId ?? randomUUID(),
      placementName: "search-top",
      context: "search",
    }),
    body: { session_id: shot.bodySession ?? shot.session, ...(shot.user ? { user_id: shot.user } : {}) },
    userAgent: shot.userAgent === undefined ? CHROME : shot.userAgent,
    clientHash: shot.clientHash ?? null,
    now: shot.when,
  });
}

interface Line {
  sku: string;
  quantity: number;
  price: number;
}

/** An order by `shopper`, whose hashed e-mail is of `email`, or of the user's own address. */
async function order(
  publisherId: string,
  shopper: { session: string; user: string; email?: string },
  placed: Date,
  lines: Line[],
  key: string | null,
): Promise<void> {
  const caller = key ? await authenticateApiKey(key) : null;
  await recordConversion(
    {
      publisher_id: publisherId,
      user_id: shopper.user,
      session_id: shopper.session,
      order_id: `o-${randomUUID()}`,
      created_at: placed.toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256")
        .update(shopper.email ?? `${shopper.user}@example.com`)
        .digest("hex"),
      items: lines.map((line) => ({ sku: line.sku, quantity: line.quantity, price: line.price, promotional_price: line.price })),
    },
    new Date(placed.getTime() + 60_000),
    { key: caller },
  );
}

/**
 * Local midnights of the parity zones on the middle day (UTC moments, worked out by hand from the
 * offsets in force on 10 November 2026, after New York's change to standard time on 1 November):
 * São Paulo −3, New York −5, Kolkata +5:30, Kathmandu +5:45, Lord Howe +11 (its daylight time).
 */
export const LOCAL_MIDNIGHTS: Record<string, Date> = {
  "America/Sao_Paulo": new Date("2026-11-10T03:00:00Z"),
  "America/New_York": new Date("2026-11-10T05:00:00Z"),
  "Asia/Kolkata": new Date("2026-11-10T18:30:00Z"),
  "Asia/Kathmandu": new Date("2026-11-10T18:15:00Z"),
  "Australia/Lord_Howe": new Date("2026-11-10T13:00:00Z"),
};

/** `options.localMidnights`: an impression 1 ms before and one at each of LOCAL_MIDNIGHTS, and a credited order 1 ms before Kolkata's. */
// Over 80 lines on purpose: the whole story of the traffic in one place, day by day, so what the reports must show can be read off it.
export async function seedParityTraffic(options: { localMidnights?: boolean } = {}) {
  const network = await createAccount({ actor: OPERATOR, kind: "network", name: `Network ${randomUUID()}`, sites: [] });
  const [subOne, subTwo] = [await makePublisher({ networkId: network.id }), await makePublisher({ networkId: network.id })];
  const [shopOne, strictShop] = [await makePublisher(), await makePublisher()];
  // Shop one and the network's sub-publishers credit orders without proof; the strict shop keeps the default, proven orders only.
  const lenient = { creditUnverified: true, maxOrderTotal: null, maxLineQuantity: null };
  for (const shop of [shopOne, subOne, subTwo]) await updateConversionTrust({ actor: OPERATOR, publisherId: shop.id, ...lenient });
  const shopOneKey = (await createApiKey({ actor: OPERATOR, accountId: shopOne.id, name: "checkout" })).key;
  const strictKey = (await createApiKey({ actor: OPERATOR, accountId: strictShop.id, name: "checkout" })).key;
  const subOneKey = (await createApiKey({ actor: OPERATOR, accountId: subOne.id, name: "checkout" })).key;

  const [acme, bolt, idle] = [await makeAdvertiser(), await makeAdvertiser(), await makeAdvertiser()];
  const kettle = `K-${randomUUID()}`;
  const tea = `T-${randomUUID()}`;
  const bulb = `B-${randomUUID()}`;
  // Acme's by shop one's and the strict shop's catalogues, sold by no campaign: its lines are halo.
  const descaler = `D-${randomUUID()}`;
  for (const publisher of [shopOne, strictShop]) await setCatalogueEntry({ actor: OPERATOR, publisherId: publisher.id, sku: descaler, advertiserId: acme.id });
  const acmeDirect = await makeCampaignWithAd({
    advertiserId: acme.id,
    publisherIds: [shopOne.id, strictShop.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [{ sku: kettle, name: "Kettle" }],
  });
  const secondAd = await createAd({
    actor: OPERATOR,
    campaignId: acmeDirect.campaign.id,
    name: `Second ad ${randomUUID()}`,
    type: "product",
    destinationUrl: "https://shop.example/landing",
  });
  const acmeNetwork = await makeCampaignWithAd({
    advertiserId: acme.id,
    publisherIds: [network.id],
    type: "product",
    bidModel: "cpm",
    bid: 4,
    products: [{ sku: tea, name: "Tea" }],
  });
  const boltBoth = await makeCampaignWithAd({
    advertiserId: bolt.id,
    publisherIds: [shopOne.id, network.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.3,
    products: [{ sku: bulb, name: "Bulb" }],
  });
  await makeCampaignWithAd({ advertiserId: idle.id, publisherIds: [shopOne.id], bidModel: "cpm", bid: 2 });

  const on = (made: { campaign: ServedTarget["campaign"]; ad: ServedTarget["ad"] }, publisher: ServedTarget["publisher"]): ServedTarget => ({
    ...made,
    publisher,
  });
  const acmeOne = on(acmeDirect, shopOne);
  const acmeSecondOne: ServedTarget = { campaign: acmeDirect.campaign, ad: { id: secondAd.id, type: "product", size: null }, publisher: shopOne };
  const acmeStrict = on(acmeDirect, strictShop);
  const teaOne = on(acmeNetwork, subOne);
  const teaTwo = on(acmeNetwork, subTwo);
  const boltOne = on(boltBoth, shopOne);
  const boltSubOne = on(boltBoth, subOne);

  // Every day: impressions on every placement from a few shoppers, and some clicks.
  const targets = [acmeOne, acmeSecondOne, acmeStrict, teaOne, teaTwo, boltOne, boltSubOne];
  for (const [d, day] of PARITY_DAYS.entries()) {
    for (const [t, target] of targets.entries()) {
      for (let s = 0; s < 2 + ((d + t) % 3); s++) {
        // A shopper is the same user on every placement: orders credit whatever each line's campaign showed them.
        const shopper = { session: `s-${d}-${t}-${s}`, user: `u-${s}` };
        await shoot(target, { ...shopper, when: at(day, 8 + s, t) });
        if ((s + d) % 2 === 0) await shoot(target, { ...shopper, kind: "click", when: at(day, 8 + s, t, 30) });
        if (s === 0) await shoot(target, { ...shopper, kind: "view", when: at(day, 8 + s, t, 40) });
      }
    }
  }
  // Repeats inside the windows, bots, beacons without a user agent or of another session.
  await shoot(acmeOne, { session: "s-0-0-0", user: "u-0", when: at(PARITY_DAYS[0], 8, 0, 20) });
  await shoot(teaOne, { session: "s-1-3-0", user: "u-0", kind: "click", when: at(PARITY_DAYS[1], 8, 3, 50) });
  await shoot(teaOne, { session: "s-1-3-0", user: "u-0", kind: "click", when: at(PARITY_DAYS[1], 8, 3, 55) });
  await shoot(boltOne, { session: "bot-1", when: at(PARITY_DAYS[1], 12), userAgent: BOT });
  await shoot(teaTwo, { session: "bot-2", when: at(PARITY_DAYS[2], 12), userAgent: BOT });
  await shoot(acmeStrict, { session: "no-agent", when: at(PARITY_DAYS[2], 13), userAgent: null });
  await shoot(boltSubOne, { session: "token-session", bodySession: "another-session", when: at(PARITY_DAYS[0], 14) });
  // A shopper who clicks on the first day and buys the next day and the day after.
  await shoot(acmeOne, { session: "late", user: "late-buyer", kind: "click", when: at(PARITY_DAYS[0], 10) });
  // A shopper who only sees bolt's ad on shop one, and one who clicks acme's and sees bolt's.
  await shoot(boltOne, { session: "viewer", user: "viewer", when: at(PARITY_DAYS[1], 11) });
  await shoot(boltOne, { session: "viewer", user: "viewer", kind: "view", when: at(PARITY_DAYS[1], 11, 0, 10) });
  await shoot(acmeOne, { session: "mixed", user: "mixed", when: at(PARITY_DAYS[0], 12) });
  await shoot(acmeOne, { session: "mixed", user: "mixed", kind: "click", when: at(PARITY_DAYS[0], 12, 0, 10) });
  await shoot(boltOne, { session: "mixed", user: "mixed", when: at(PARITY_DAYS[0], 12, 5) });
  await shoot(boltOne, { session: "mixed", user: "mixed", kind: "view", when: at(PARITY_DAYS[0], 12, 5, 10) });
  // A shopper browsing signed out (no user id on the beacons) who clicks acme's ad, then buys by session.
  await shoot(acmeOne, { session: "signed-out", when: at(PARITY_DAYS[0], 9, 30) });
  await shoot(acmeOne, { session: "signed-out", kind: "click", when: at(PARITY_DAYS[0], 9, 30, 10) });
  // A shopper who clicks acme's ad and the next day buys only the descaler: a click with halo credit alone.
  await shoot(acmeOne, { session: "halo", user: "halo-buyer", when: at(PARITY_DAYS[1], 13) });
  await shoot(acmeOne, { session: "halo", user: "halo-buyer", kind: "click", when: at(PARITY_DAYS[1], 13, 0, 10) });
  // Two shoppers who click acme's ad on the strict shop and then buy without proof (uncredited): one
  // of them buys again with proof the day after.
  await shoot(acmeStrict, { session: "proven-later", user: "proven-later", kind: "click", when: at(PARITY_DAYS[0], 15) });
  await shoot(acmeStrict, { session: "unproven-only", user: "unproven-only", kind: "click", when: at(PARITY_DAYS[0], 15, 0, 30) });
  // One click token counted three times an hour apart; the fourth is token reuse.
  const reused = randomUUID();
  for (let hour = 15; hour <= 18; hour++)
    await shoot(acmeOne, { session: "reuser", kind: "click", when: at(PARITY_DAYS[1], hour, 5 * (hour - 15)), requestId: reused });
  // More clicks from one address in a minute than it may make: the last are click velocity.
  for (let i = 0; i < 33; i++) await shoot(boltOne, { session: `fast-${i}`, kind: "click", when: at(PARITY_DAYS[2], 16, 0, i), clientHash: "one-address" });
  await settleAll();

  // Orders, each on the shopper's publisher. A verified order crediting both advertisers on shop one;
  // an unverified one there (credited: shop one requires no proof); on the strict shop one
  // unverified (uncredited) and one verified; on the network's sub-publishers orders of each
  // advertiser and one of both; and on shop one two orders a day and two days after their only
  // click, one credited to a view alone, and one crediting a click (acme) and a view (bolt). The
  // descaler is bought with the strict shop's uncredited order, with the order of a click and a
  // view, and alone by the shopper who clicked acme's ad the day before: halo each time. Each
  // shopper's first order of a brand at a publisher is new to it; the late buyer's second kettle is
  // not (the same user id), nor is the signed-out shopper's second, bought as a guest under another
  // user id with the same e-mail.
  await order(
    shopOne.id,
    { session: "s-1-0-0", user: "u-0" },
    at(PARITY_DAYS[1], 20),
    [
      { sku: kettle, quantity: 2, price: 12.5 },
      { sku: bulb, quantity: 1, price: 3 },
    ],
    shopOneKey,
  );
  await order(shopOne.id, { session: "s-2-5-1", user: "u-1" }, at(PARITY_DAYS[2], 21), [{ sku: bulb, quantity: 4, price: 2.25 }], null);
  await order(shopOne.id, { session: "s-2-0-1", user: "u-1" }, at(PARITY_DAYS[2], 21, 30), [{ sku: kettle, quantity: 1, price: 30 }], null);
  await order(
    strictShop.id,
    { session: "s-1-2-0", user: "u-0" },
    at(PARITY_DAYS[1], 22),
    [
      { sku: kettle, quantity: 1, price: 19.99 },
      { sku: descaler, quantity: 1, price: 7 },
    ],
    null,
  );
  await order(strictShop.id, { session: "s-2-2-1", user: "u-1" }, at(PARITY_DAYS[2], 22), [{ sku: kettle, quantity: 3, price: 19.99 }], strictKey);
  await order(subOne.id, { session: "s-0-3-0", user: "u-0" }, at(PARITY_DAYS[0], 20), [{ sku: tea, quantity: 2, price: 4 }], subOneKey);
  await order(
    subOne.id,
    { session: "s-2-6-1", user: "u-1" },
    at(PARITY_DAYS[2], 19),
    [
      { sku: tea, quantity: 1, price: 4 },
      { sku: bulb, quantity: 2, price: 3 },
    ],
    null,
  );
  await order(shopOne.id, { session: "late", user: "late-buyer" }, at(PARITY_DAYS[1], 12), [{ sku: kettle, quantity: 2.25, price: 8 }], null);
  await order(shopOne.id, { session: "late", user: "late-buyer" }, at(PARITY_DAYS[2], 9), [{ sku: kettle, quantity: 1, price: 8 }], shopOneKey);
  await order(shopOne.id, { session: "viewer", user: "viewer" }, at(PARITY_DAYS[2], 10), [{ sku: bulb, quantity: 1.5, price: 2.4 }], null);
  const signedOut = { session: "signed-out", email: "member@example.com" };
  await order(shopOne.id, { ...signedOut, user: "member" }, at(PARITY_DAYS[0], 10), [{ sku: kettle, quantity: 1, price: 30 }], null);
  await order(shopOne.id, { ...signedOut, user: "guest" }, at(PARITY_DAYS[1], 9), [{ sku: kettle, quantity: 2, price: 30 }], null);
  // 1/128 of a kettle: 7812.5 millionths, which both stores round half to even.
  await order(
    shopOne.id,
    { session: "mixed", user: "mixed" },
    at(PARITY_DAYS[0], 18),
    [
      { sku: kettle, quantity: 0.0078125, price: 30 },
      { sku: bulb, quantity: 0.75, price: 3 },
      { sku: descaler, quantity: 1, price: 6 },
    ],
    null,
  );
  await order(shopOne.id, { session: "halo", user: "halo-buyer" }, at(PARITY_DAYS[2], 11), [{ sku: descaler, quantity: 3, price: 5 }], null);
  await order(subTwo.id, { session: "s-0-4-0", user: "u-0" }, at(PARITY_DAYS[2], 18), [{ sku: tea, quantity: 5, price: 4 }], null);
  // Without proof on the strict shop: uncredited, no purchase and no converted click; the proven
  // order the day after is credited and new to acme's brand.
  await order(strictShop.id, { session: "proven-later", user: "proven-later" }, at(PARITY_DAYS[1], 9), [{ sku: kettle, quantity: 1, price: 99_999 }], null);
  await order(
    strictShop.id,
    { session: "unproven-only", user: "unproven-only" },
    at(PARITY_DAYS[1], 9, 30),
    [{ sku: kettle, quantity: 1, price: 99_999 }],
    null,
  );
  await order(strictShop.id, { session: "proven-later", user: "proven-later" }, at(PARITY_DAYS[2], 9), [{ sku: kettle, quantity: 1, price: 20 }], strictKey);
  if (options.localMidnights) {
    for (const [zone, midnight] of Object.entries(LOCAL_MIDNIGHTS)) {
      await shoot(acmeOne, { session: `before-${zone}`, user: `night-${zone}`, when: new Date(midnight.getTime() - 1) });
      await shoot(boltOne, { session: `at-${zone}`, user: `night-${zone}`, when: midnight });
    }
    const kolkata = LOCAL_MIDNIGHTS["Asia/Kolkata"]!.getTime();
    await shoot(acmeOne, { session: "night-order", user: "night-buyer", kind: "click", when: new Date(kolkata - 60_000) });
    await order(shopOne.id, { session: "night-order", user: "night-buyer" }, new Date(kolkata - 1), [{ sku: kettle, quantity: 1, price: 12 }], null);
  }
  await settleAll();
  await attributePendingConversions({ settleMs: 0 });

  return {
    range: { startDate: PARITY_DAYS[0], endDate: PARITY_DAYS[2] },
    network,
    subOne,
    subTwo,
    shopOne,
    strictShop,
    acme,
    bolt,
    idle,
    campaigns: { acmeDirect: acmeDirect.campaign.id, acmeNetwork: acmeNetwork.campaign.id, boltBoth: boltBoth.campaign.id },
    ads: { acmeFirst: acmeDirect.ad.id, acmeSecond: secondAd.id, tea: acmeNetwork.ad.id, bulb: boltBoth.ad.id },
  };
}
