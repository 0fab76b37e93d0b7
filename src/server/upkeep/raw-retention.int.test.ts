// Retention of settled raw rows: whole days of ad_events, conversions and attributions go once
// past TALLY_RAW_RETENTION_DAYS, reports (read from the rollups) stay as they were, rollups:verify
// recounts only the days kept, and an export destination far behind holds its days until it has
// delivered them, which the dashboard's listing says.
import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { DAY_MS, utcDay } from "@/server/core/days";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { pgPool } from "@/server/db/pg-pool";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { listDestinations } from "@/server/pipeline/export/destinations/destinations";
import { rawRetentionPolicy, retentionHolds } from "@/server/pipeline/export/job/retention-holds";
import { store } from "@/server/store";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { campaignListing } from "@/testing/campaign-listing";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { createDayPartitions, dayPartitions } from "./day-partitions.sql";
import { dropExpiredRawDays } from "./raw-retention.sql";

const NOW = new Date();
const dayOf = (offset: number) => utcDay(NOW.getTime() + offset * DAY_MS);
/** Noon UTC `offset` days from today. */
const noonOf = (offset: number) => new Date(Date.parse(`${dayOf(offset)}T12:00:00Z`));
const named = (table: string, offset: number) => `${table}_${dayOf(offset).replaceAll("-", "")}`;
// The configured policy (90 days, holds for 60 more unless set): the dashboard's listing reads it too.
const POLICY = rawRetentionPolicy();
const RETENTION_DAYS = POLICY.days;
/** A day past retention with a click and an order; the destination was created four days before it. */
const OLD = -(RETENTION_DAYS + 9);
const CREATED = OLD - 4;

let publisher: Awaited<ReturnType<typeof makePublisher>>;
let advertiser: Awaited<ReturnType<typeof makeAdvertiser>>;
let shop: Awaited<ReturnType<typeof makeCampaignWithAd>>;

async function click(at: Date, session: string, user: string) {
  const stored = await recordAndSettle({
    claims: servedClaims({ ...shop, publisher }, session, { kind: "click", at }),
    body: { session_id: session, user_id: user },
    userAgent: CHROME,
    now: at,
  });
  expect(stored.status).toBe("counted");
}

/** An order of the campaign's SKU placed at `placedAt`, received a minute later from the publisher's checkout server. */
async function order(who: { session: string; user: string }, placedAt: Date) {
  await recordAndSettleConversion(
    {
      publisher_id: publisher.id,
      user_id: who.user,
      session_id: who.session,
      order_id: `order-${randomUUID()}`,
      created_at: placedAt.toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update(who.user).digest("hex"),
      items: [{ sku: shop.products[0]!.sku, quantity: 2, price: 10, promotional_price: 8 }],
    },
    new Date(placedAt.getTime() + 60_000),
    { proven: true },
  );
}

const shopper = () => ({ session: `s-${randomUUID()}`, user: `u-${randomUUID()}` });

/** A click, then an order an hour later. */
async function clickAndOrder(at: Date) {
  const who = shopper();
  await click(at, who.session, who.user);
  await order(who, new Date(at.getTime() + 3_600_000));
}

const countOf = async (table: string) => Number((await pgPool().query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`)).rows[0]!.n);

const scope = () => ({ advertiserId: advertiser.id, publisherIds: null, targetedPublisherIds: null });
const report = () =>
  campaignListing(scope(), {
    zone: "UTC",
    startDate: dayOf(CREATED - 1),
    endDate: dayOf(0),
    page: 1,
    perPage: 10,
    orderBy: "impressions_total",
    order: "desc",
    download: false,
    ids: {},
  });

beforeAll(async () => {
  // Days from before the destination on, as upkeep would have made them then.
  for (const table of ["ad_events", "conversions", "attributions"] as const) await createDayPartitions(noonOf(CREATED - 1), table, { daysAhead: 8 - CREATED });
  publisher = await makePublisher();
  advertiser = await makeAdvertiser();
  shop = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [{ sku: `SKU-${randomUUID().slice(0, 8)}`, name: "Beans" }],
  });
  await clickAndOrder(noonOf(OLD));
  await clickAndOrder(noonOf(-5));
  await clickAndOrder(new Date(NOW.getTime() - 3 * 3_600_000));
  expect((await attributePendingConversions({ settleMs: 0 })).attributedOrders).toBe(3);
});

describe("raw retention", () => {
  it("keeps the days a destination far behind has not delivered, says so, and lets them go once it has", async () => {
    const createdAt = noonOf(CREATED);
    const destination = await db.exportDestination.create({
      data: {
        id: newId("dst"),
        accountId: advertiser.id,
        name: "warehouse",
        bucket: "tally-export",
        region: "us-east-1",
        credentialKind: "access_key",
        accessKeyId: "AKIAEXAMPLE",
        types: ["ad_events", "orders", "order_items"],
        createdAt,
      },
    });
    const before = await report();

    // Never delivered anything: it holds everything since the day it was created.
    expect(await countOf("converted_clicks")).toBe(3);
    const held = await dropExpiredRawDays(NOW, POLICY);
    expect(held.dropped).not.toContain(named("ad_events", OLD));
    expect(await countOf("converted_clicks")).toBe(3);
    expect(held.dropped).not.toContain(named("conversions", OLD));
    expect(await countOf(named("ad_events", OLD))).toBe(1);
    expect(await countOf(named("attributions", OLD))).toBe(1);
    const holds = await retentionHolds(NOW, POLICY);
    expect(holds.map((hold) => [hold.destinationId, hold.type]).sort()).toEqual([
      [destination.id, "ad_events"],
      [destination.id, "order_items"],
      [destination.id, "orders"],
    ]);
    const [listed] = await listDestinations(advertiser.id, { actor: OPERATOR });
    expect(listed!.retentionHold).toEqual({
      deliveredTo: new Date(`${dayOf(CREATED)}T00:00:00.000Z`),
      droppedBefore: new Date(`${dayOf(-RETENTION_DAYS - POLICY.maxHoldDays)}T00:00:00.000Z`),
      retentionDays: RETENTION_DAYS,
    });

    // A hold has a ceiling: with holds of at most 12 days past retention, the days before go
    // undelivered (the day the destination was made), the old day with its click and order stays.
    const capped = await dropExpiredRawDays(NOW, { ...POLICY, maxHoldDays: 12 });
    expect(capped.dropped).toEqual(expect.arrayContaining([named("ad_events", CREATED), named("conversions", CREATED)]));
    expect(capped.dropped).not.toContain(named("ad_events", CREATED + 1));
    expect(await countOf(named("ad_events", OLD))).toBe(1);

    // Delivered up to now for every type (the old order was credited today, so its items
    // were delivered only now): the days past retention go, the rest stay.
    for (const type of ["ad_events", "orders", "order_items"] as const) {
      await db.exportWatermark.create({ data: { destinationId: destination.id, type, deliveredTo: new Date() } });
    }
    const done = await dropExpiredRawDays(NOW, POLICY);
    expect(done.dropped).toEqual(
      expect.arrayContaining([named("ad_events", OLD), named("attributions", OLD), named("conversions", OLD), named("ad_events", -RETENTION_DAYS - 1)]),
    );
    expect(done.dropped).not.toContain(named("ad_events", -RETENTION_DAYS));
    expect(done.dropped.some((name) => name.endsWith(dayOf(-5).replaceAll("-", "")) || name.endsWith(dayOf(0).replaceAll("-", "")))).toBe(false);
    const left = (await dayPartitions(["ad_events", "conversions", "attributions"])).map((p) => p.name);
    expect(left).not.toContain(named("ad_events", OLD));
    expect(left).toEqual(
      expect.arrayContaining([named("ad_events", -RETENTION_DAYS), named("ad_events", -5), named("conversions", -5), named("attributions", 0)]),
    );
    // The old click's mark of having converted goes with it; the others stay.
    expect(await countOf("converted_clicks")).toBe(2);
    expect(await retentionHolds(NOW, POLICY)).toEqual([]);
    expect((await listDestinations(advertiser.id, { actor: OPERATOR }))[0]!.retentionHold).toBeNull();

    // Reports read the rollups: the same with the old day's raw rows gone, its click and order included.
    const after = await report();
    expect(after).toEqual(before);
    expect(after.data.find((row) => row.campaign_id === shop.campaign.id)).toMatchObject({ clicks_total: 3, conversions_total: 3 });

    // rollups:verify recounts only the days whose raw rows are all there.
    expect(await store().rollups.rawRowsKeptFrom()).toEqual({ adEvents: dayOf(-RETENTION_DAYS), orders: dayOf(-RETENTION_DAYS) });
    expect(await store().rollups.firstDayWithRawRows(dayOf(CREATED))).toBe(dayOf(-RETENTION_DAYS));
    expect(await store().rollups.verify(dayOf(CREATED), dayOf(0))).toEqual([]);
    // A recount that ignored retention would find the old day short of its click and order.
    await pgPool().query("DELETE FROM raw_retention");
    expect((await store().rollups.verify(dayOf(CREATED), dayOf(0))).map((d) => d.day)).toContain(dayOf(OLD));
  });

  it("keeps an order waiting for attribution, in a day upkeep never made, until it is attributed; a disabled destination holds nothing", async () => {
    // The old days are gone, so these rows land in the default partitions.
    await order(shopper(), noonOf(OLD + 1));
    expect(await countOf("conversions_default")).toBe(1);
    await db.exportDestination.updateMany({ where: { accountId: advertiser.id }, data: { status: "disabled" } });

    await dropExpiredRawDays(NOW, POLICY);
    expect(await countOf("conversions_default")).toBe(1);

    expect((await attributePendingConversions({ settleMs: 0 })).orders).toBe(1);
    // Attributed just now, after the disabled destination's watermark: it holds nothing any more.
    const done = await dropExpiredRawDays(NOW, POLICY);
    expect(done.deletedFromDefault).toBe(1);
    expect(await countOf("conversions_default")).toBe(0);
    expect(await retentionHolds(NOW, POLICY)).toEqual([]);
  });
});
