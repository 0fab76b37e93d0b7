// Weeks of demo traffic for a fresh local install, so the dashboard opens on figures worth reading:
// impressions, views, clicks and orders on every demo campaign that runs on Demo Market, day by day
// from the campaign's start through the current hour, with a weekly rhythm and a slow rise. It goes
// through the real intake (recordBeacon, recordConversion with their times pinned, each order signed
// with Demo Market's signing secret as its checkout server would sign it), settling and
// attribution, so budgets cap spend and reports agree as they would for live traffic. Shoppers and
// amounts come from a seeded generator: two installs get the same history for the same days.
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

interface DemoTarget {
  claims: Omit<BeaconClaims, "kind" | "requestId" | "issuedAt" | "sessionHash">;
  startDay: number;
  skus: { sku: string; price: number }[];
  clickRate: number;
}

async function demoTargets(): Promise<DemoTarget[]> {
  const campaigns = await db.campaign.findMany({
    where: { status: "active", publishers: { some: { publisherId: DEMO.publisherId } } },
    include: { ads: { where: { status: "active" }, include: { products: { include: { product: true } } } }, products: { include: { product: true } } },
    orderBy: { id: "asc" },
  });
  const site = await db.site.findFirstOrThrow({ where: { publisherId: DEMO.publisherId }, orderBy: { name: "asc" } });
  return campaigns.flatMap((campaign) =>
    campaign.ads.map((ad) => {
      const products = (ad.products.length > 0 ? ad.products : campaign.products).map((p) => p.product);
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
        },
        startDay: Math.floor(campaign.startDate.getTime() / DAY_MS),
        skus: products.map((p) => ({ sku: p.sku, price: p.priceMicros ? Number(p.priceMicros) / 1e6 : 9.99 })),
        clickRate: ad.type === "product" ? 0.028 : 0.007,
      };
    }),
  );
}

/** Whether the demo publisher already has traffic: the history is made once. */
async function hasTraffic(): Promise<boolean> {
  return (await db.$queryRaw<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM ad_events WHERE publisher_id = ${DEMO.publisherId}) AS any`)[0]!.any;
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
  let orders = 0;
  let pending: Promise<unknown>[] = [];
  const flush = async () => {
    await Promise.all(pending);
    pending = [];
  };
  const shoppers: { at: Date; target: DemoTarget; user: string; session: string }[] = [];
  for (let day = first; day <= today; day += 1) {
    const weekday = new Date(day * DAY_MS).getUTCDay();
    // Weekends shop more; the campaigns gain reach as they run.
    const rhythm = (weekday === 0 || weekday === 6 ? 1.3 : 1) * (0.75 + (0.5 * (day - first)) / days);
    const hoursToday = day === today ? Math.max(1, new Date(now).getUTCHours()) : 24;
    for (const target of targets) {
      if (day < target.startDay) continue;
      const impressions = Math.round((50 + random() * 40) * rhythm * (hoursToday / 24));
      for (let i = 0; i < impressions; i += 1) {
        const at = new Date(day * DAY_MS + Math.floor(random() * hoursToday * 3_600_000));
        if (at.getTime() > now) continue;
        const n = Math.floor(random() * 1e9);
        const session = `demo-s-${n}`;
        const user = `demo-u-${n % 4000}`;
        const requestId = `demo-${day}-${target.claims.adId}-${i}`;
        const kinds: BeaconClaims["kind"][] = ["impression"];
        if (random() < 0.7) kinds.push("view");
        if (random() < target.clickRate * rhythm) kinds.push("click");
        for (const kind of kinds) {
          const claims: BeaconClaims = { ...target.claims, kind, requestId, issuedAt: Math.floor(at.getTime() / 1000), sessionHash: sessionHashOf(session) };
          pending.push(recordBeacon({ claims, body: { session_id: session, user_id: user }, userAgent: CHROME, now: at }));
          beacons += 1;
        }
        if (kinds.includes("click") && target.skus.length > 0 && random() < 0.35) shoppers.push({ at, target, user, session });
        if (pending.length >= IN_FLIGHT) await flush();
      }
    }
    await flush();
    if ((day - first) % 10 === 9 || day === today) log(`history: ${new Date(day * DAY_MS).toISOString().slice(0, 10)}: ${beacons} beacons so far`);
  }
  await settleEverything();
  const secret = (await liveSigningSecrets(DEMO.publisherId, now)).find((live) => live.current)?.secret;
  if (!secret) throw new Error("Demo Market has no signing secret: run the seed first");
  for (const shopper of shoppers) {
    const placed = new Date(Math.min(now - 60_000, shopper.at.getTime() + (5 + random() * 120) * 60_000));
    const item = shopper.target.skus[Math.floor(random() * shopper.target.skus.length)]!;
    const orderId = `demo-order-${orders + 1}`;
    const items = [{ sku: item.sku, quantity: 1 + Math.floor(random() * 3), price: item.price, promotional_price: item.price }];
    await recordConversion(
      {
        publisher_id: DEMO.publisherId,
        user_id: shopper.user,
        session_id: shopper.session,
        order_id: orderId,
        created_at: placed.toISOString(),
        channel: "web",
        brand: shopper.target.claims.site,
        email_hashed: createHash("sha256").update(`${shopper.user}@example.com`).digest("hex"),
        items,
        order_token: signOrderToken(secret, orderId, orderTotalMicros(items)),
      },
      new Date(placed.getTime() + 30_000),
    );
    orders += 1;
  }
  await settleEverything();
  const attributed = await attributePendingConversions({ settleMs: 0 });
  log(`history: ${beacons} beacons and ${orders} orders over ${days} days, ${attributed.attributedOrders} orders credited to an ad`);
}

async function settleEverything(): Promise<void> {
  for (;;) {
    const done = await settlePending();
    if (done.events === 0 && done.orders === 0) return;
  }
}
