// Weeks of demo traffic for a fresh local install, so the dashboard opens on figures worth reading:
// impressions, views, clicks and orders on every demo campaign that runs on Demo Market, day by day
// from the campaign's start through the current hour, with a weekly rhythm and a slow rise. It goes
// through the real intake (recordBeacon, recordConversion with their times pinned), settling and
// attribution, so budgets cap spend and reports agree as they would for live traffic. The orders
// tell the product's story: most are signed with Demo Market's signing secret as its checkout
// server would sign them (a few arrive without proof, counted apart as unverified), some follow a
// click and some only a view, some buy the brand's product that no campaign promotes (halo), a few
// shoppers come back (not new to the brand), and the purchase rates keep ROAS where a retailer's
// campaigns sit (a few times the spend). Shoppers and amounts come from a seeded generator: two
// installs get the same history for the same days.
import { createHash } from "node:crypto";
import { orderTotalMicros } from "@/contracts/order-token";
import { db } from "@/server/db/client";
import { type BeaconClaims, sessionHashOf } from "@/server/pipeline/accept/beacons/beacon-token";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { signOrderToken } from "@/server/pipeline/accept/conversions/order-proof";
import { recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { liveSigningSecrets } from "@/server/pipeline/accept/conversions/signing-secrets";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { settlePending } from "@/server/pipeline/settle/settle-pending";
import { createDayPartitions, PARTITIONED_TABLES } from "@/server/upkeep/day-partitions.sql";
import { DEMO } from "./seed";

const DAY_MS = 86_400_000;
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
/** Beacons recorded at once: the intake's group commits take them together. */
const IN_FLIGHT = 200;

/** mulberry32: small, seeded, good enough for demo shoppers. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Sku = { sku: string; price: number };

interface DemoTarget {
  claims: Omit<BeaconClaims, "kind" | "requestId" | "issuedAt" | "sessionHash">;
  startDay: number;
  /** The ad's products, which its campaign promotes. */
  skus: Sku[];
  /** The brand's products that no campaign promotes: bought after the ad, they are its halo. */
  haloSkus: Sku[];
  impressionsPerDay: number;
  clickRate: number;
  /** How likely a click, and a view without a click, leads to an order. */
  buyAfterClick: number;
  buyAfterView: number;
}

/**
 * What each kind of ad draws and sells. A search-top product ad: fewer impressions, more clicks,
 * a click buys one time in ten; a home banner: more impressions, fewer clicks and buyers, of dearer
 * goods. With the seed's bids (CPC 0.40, CPM 20.00) these keep each brand's ROAS at a few times its
 * spend (src/cli/demo-history.int.test.ts holds it between 2 and 12).
 */
const BEHAVIOUR = {
  product: { impressionsPerDay: 70, clickRate: 0.028, buyAfterClick: 0.1, buyAfterView: 0.0016 },
  display: { impressionsPerDay: 130, clickRate: 0.008, buyAfterClick: 0.04, buyAfterView: 0.0006 },
} as const;

const price = (p: { priceMicros: bigint | null }) => (p.priceMicros ? Number(p.priceMicros) / 1e6 : 9.99);

async function demoTargets(): Promise<DemoTarget[]> {
  const campaigns = await db.campaign.findMany({
    where: { status: "active", publishers: { some: { publisherId: DEMO.publisherId } } },
    include: { ads: { where: { status: "active" }, include: { products: { include: { product: true } } } }, products: { include: { product: true } } },
    orderBy: { id: "asc" },
  });
  const site = await db.site.findFirstOrThrow({ where: { publisherId: DEMO.publisherId }, orderBy: { name: "asc" } });
  const promoted = new Set(campaigns.flatMap((c) => c.products.map((p) => p.productRef)));
  const brands = await db.product.findMany({ where: { advertiserId: { in: campaigns.map((c) => c.advertiserId) } }, orderBy: { sku: "asc" } });
  return campaigns.flatMap((campaign) =>
    campaign.ads.map((ad) => {
      const products = (ad.products.length > 0 ? ad.products : campaign.products).map((p) => p.product);
      const halo = brands.filter((p) => p.advertiserId === campaign.advertiserId && !promoted.has(p.id));
      return {
        claims: {
          adId: ad.id,
          campaignId: campaign.id,
          advertiserId: campaign.advertiserId,
          publisherId: DEMO.publisherId,
          site: site.name,
          placementName: ad.type === "product" ? "search-top" : "home-banner",
          context: ad.type === "product" ? "search" : "home",
          adType: ad.type,
          adSize: ad.size,
          searchTerm: null,
          category: null,
        },
        startDay: Math.floor(campaign.startDate.getTime() / DAY_MS),
        skus: products.map((p) => ({ sku: p.sku, price: price(p) })),
        haloSkus: halo.map((p) => ({ sku: p.sku, price: price(p) })),
        ...BEHAVIOUR[ad.type === "product" ? "product" : "display"],
      };
    }),
  );
}

/** Whether the demo publisher already has traffic: the history is made once. */
async function hasTraffic(): Promise<boolean> {
  return (await db.$queryRaw<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM ad_events WHERE publisher_id = ${DEMO.publisherId}) AS any`)[0]!.any;
}

interface Shopper {
  at: Date;
  target: DemoTarget;
  user: string;
  session: string;
  /** Minutes from the touch to the order: soon after a click, hours or days after a view. */
  afterMinutes: number;
}

// Over 80 lines on purpose: the day-by-day story of the demo traffic reads best in one place.
export async function seedDemoHistory({ days = 60, log = console.log }: { days?: number; log?: (line: string) => void } = {}): Promise<void> {
  if (await hasTraffic()) {
    log("history: demo traffic already present, nothing to do");
    return;
  }
  const now = Date.now();
  const today = Math.floor(now / DAY_MS);
  const first = today - days + 1;
  for (const table of PARTITIONED_TABLES) await createDayPartitions(new Date(first * DAY_MS), table, { daysAhead: days + 1 });
  const targets = await demoTargets();
  const random = generator(20261128);
  let beacons = 0;
  let pending: Promise<unknown>[] = [];
  const flush = async () => {
    await Promise.all(pending);
    pending = [];
  };
  const shoppers: Shopper[] = [];
  const owed = new Map(targets.map((target) => [target, { click: 0.5, view: 0.5 }]));
  for (let day = first; day <= today; day += 1) {
    const weekday = new Date(day * DAY_MS).getUTCDay();
    // Weekends shop more; the campaigns gain reach as they run.
    const rhythm = (weekday === 0 || weekday === 6 ? 1.3 : 1) * (0.75 + (0.5 * (day - first)) / days);
    const hoursToday = day === today ? Math.max(1, new Date(now).getUTCHours()) : 24;
    for (const target of targets) {
      if (day < target.startDay) continue;
      const impressions = Math.round(target.impressionsPerDay * (0.7 + random() * 0.6) * rhythm * (hoursToday / 24));
      for (let i = 0; i < impressions; i += 1) {
        const at = new Date(day * DAY_MS + Math.floor(random() * hoursToday * 3_600_000));
        if (at.getTime() > now) continue;
        const n = Math.floor(random() * 1e9);
        const session = `demo-s-${n}`;
        // A town's worth of shoppers: some see the ads again, and some buy the brand again.
        const user = `demo-u-${n % 1500}`;
        const requestId = `demo-${day}-${target.claims.adId}-${i}`;
        const kinds: BeaconClaims["kind"][] = ["impression"];
        if (random() < 0.7) kinds.push("view");
        if (random() < target.clickRate * rhythm) kinds.push("click");
        for (const kind of kinds) {
          const claims: BeaconClaims = { ...target.claims, kind, requestId, issuedAt: Math.floor(at.getTime() / 1000), sessionHash: sessionHashOf(session) };
          pending.push(recordBeacon({ claims, body: { session_id: session, user_id: user }, userAgent: CHROME, now: at }));
          beacons += 1;
        }
        // Purchases follow the rates as a running sum, not a draw each: a few dozen orders by chance
        // would swing a campaign's ROAS from one install's day to the next.
        const due = owed.get(target)!;
        if (kinds.includes("click")) {
          due.click += target.buyAfterClick;
          if (due.click >= 1) {
            due.click -= 1;
            shoppers.push({ at, target, user, session, afterMinutes: 5 + random() * 120 });
          }
        } else if (kinds.includes("view")) {
          due.view += target.buyAfterView;
          if (due.view >= 1) {
            // Later, in another session (a phone, the next day): the view is the touch that remains.
            due.view -= 1;
            shoppers.push({ at, target, user, session: `demo-later-${n}`, afterMinutes: 60 + random() * 4 * 24 * 60 });
          }
        }
        if (pending.length >= IN_FLIGHT) await flush();
      }
    }
    await flush();
    if ((day - first) % 10 === 9 || day === today) log(`history: ${new Date(day * DAY_MS).toISOString().slice(0, 10)}: ${beacons} beacons so far`);
  }
  await settleEverything();
  const orders = await placeOrders(shoppers, random, now);
  await settleEverything();
  const attributed = await attributePendingConversions({ settleMs: 0 });
  log(
    `history: ${beacons} beacons and ${orders.placed} orders (${orders.unsigned} without proof) over ${days} days, ${attributed.attributedOrders} orders credited to an ad`,
  );
}

/**
 * The shoppers' orders, in the order they were placed: the ad's product, or now and then the
 * brand's unpromoted one (halo); signed as Demo Market's checkout server signs them, but for one in
 * fifteen sent without proof, as a store's app sending orders straight from the phone would.
 * Only a proven order is a purchase (an uncredited one is not), so only those make a returning buyer.
 */
async function placeOrders(shoppers: Shopper[], random: () => number, now: number): Promise<{ placed: number; unsigned: number }> {
  const secret = (await liveSigningSecrets(DEMO.publisherId, now)).find((live) => live.current)?.secret;
  if (!secret) throw new Error("Demo Market has no signing secret: run the seed first");
  const placedAt = (s: Shopper) => Math.min(now - 60_000, s.at.getTime() + s.afterMinutes * 60_000);
  const ordered = shoppers.filter((s) => s.target.skus.length > 0).sort((a, b) => placedAt(a) - placedAt(b));
  let unsigned = 0;
  /** Each brand's buyers so far, by hashed e-mail: a returning one is not new to the brand. */
  const buyers = new Map<string, string[]>();
  for (const [index, shopper] of ordered.entries()) {
    const placed = new Date(placedAt(shopper));
    const { skus, haloSkus } = shopper.target;
    // Every fifth order is of the brand's unpromoted product; every fifteenth comes without proof.
    const halo = haloSkus.length > 0 && index % 5 === 2;
    const item = halo ? haloSkus[Math.floor(random() * haloSkus.length)]! : skus[Math.floor(random() * skus.length)]!;
    const orderId = `demo-order-${index + 1}`;
    const items = [{ sku: item.sku, quantity: random() < 0.8 ? 1 : 2, price: item.price, promotional_price: item.price }];
    const proven = index % 15 !== 4;
    if (!proven) unsigned += 1;
    // One in five buyers bought the brand before, signed in elsewhere with the same e-mail.
    const brand = shopper.target.claims.advertiserId;
    const before = buyers.get(brand) ?? [];
    const email =
      before.length > 0 && random() < 0.2
        ? before[Math.floor(random() * before.length)]!
        : createHash("sha256").update(`${shopper.user}@example.com`).digest("hex");
    if (proven) buyers.set(brand, [...before, email]);
    await recordConversion(
      {
        publisher_id: DEMO.publisherId,
        user_id: shopper.user,
        session_id: shopper.session,
        order_id: orderId,
        created_at: placed.toISOString(),
        channel: "web",
        brand: shopper.target.claims.site,
        email_hashed: email,
        items,
        ...(proven ? { order_token: signOrderToken(secret, orderId, orderTotalMicros(items)) } : {}),
      },
      new Date(placed.getTime() + 30_000),
    );
  }
  return { placed: ordered.length, unsigned };
}

async function settleEverything(): Promise<void> {
  for (;;) {
    const done = await settlePending();
    if (done.events === 0 && done.orders === 0) return;
  }
}
