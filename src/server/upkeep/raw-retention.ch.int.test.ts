// Retention of settled raw rows with ClickHouse as the store: Postgres never drops a day holding a
// row the shipper has not sent, keeps ad events only as long as attribution's window and a token's
// life look back on them and orders for the de-duplication window (not TALLY_RAW_RETENTION_DAYS),
// and export destinations hold only the orders there (ad events and credited items are exported
// from ClickHouse).
import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, utcDay } from "@/server/core/days";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { pgPool } from "@/server/db/pg-pool";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { rawRetentionPolicy, retentionHolds } from "@/server/pipeline/export/job/retention-holds";
import { store } from "@/server/store";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { createDayPartitions, dayPartitions } from "./day-partitions.sql";
import { dropExpiredRawDays } from "./raw-retention.sql";

const NOW = new Date();
const dayOf = (offset: number) => utcDay(NOW.getTime() + offset * DAY_MS);
const noonOf = (offset: number) => new Date(Date.parse(`${dayOf(offset)}T12:00:00Z`));
const named = (table: string, offset: number) => `${table}_${dayOf(offset).replaceAll("-", "")}`;

let publisher: Awaited<ReturnType<typeof makePublisher>>;
let shop: Awaited<ReturnType<typeof makeCampaignWithAd>>;

/** A click at noon `offset` days from today and an order an hour later, attributed to it; returns the click's session. */
async function clickAndOrder(offset: number): Promise<string> {
  const session = `s-${randomUUID()}`;
  const user = `u-${randomUUID()}`;
  const at = noonOf(offset);
  const stored = await recordAndSettle({
    claims: servedClaims({ ...shop, publisher }, session, { kind: "click", at }),
    body: { session_id: session, user_id: user },
    userAgent: CHROME,
    now: at,
  });
  expect(stored.status).toBe("counted");
  const placedAt = new Date(at.getTime() + 3_600_000);
  await recordAndSettleConversion(
    {
      publisher_id: publisher.id,
      user_id: user,
      session_id: session,
      order_id: `order-${randomUUID()}`,
      created_at: placedAt.toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update(user).digest("hex"),
      items: [{ sku: shop.products[0]!.sku, quantity: 1, price: 10, promotional_price: 10 }],
    },
    new Date(placedAt.getTime() + 60_000),
    { proven: true },
  );
  return session;
}

const partitions = async () => new Set((await dayPartitions(["ad_events", "conversions", "attributions"])).map((p) => p.name));
const shipAll = async () => expect((await store().shipping!.ship()).error).toBeNull();

beforeAll(async () => {
  for (const table of ["ad_events", "conversions", "attributions"] as const) await createDayPartitions(noonOf(-45), table, { daysAhead: 53 });
  publisher = await makePublisher();
  shop = await makeCampaignWithAd({
    advertiserId: (await makeAdvertiser()).id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [{ sku: `SKU-${randomUUID().slice(0, 8)}`, name: "Beans" }],
  });
});

describe("raw retention with ClickHouse as the store", () => {
  it("keeps orders, not ad events or credited items, for an export destination far behind", async () => {
    expect(rawRetentionPolicy()).toMatchObject({ clickhouse: true, days: 31 });
    await clickAndOrder(-42);
    expect((await attributePendingConversions({ settleMs: 0 })).attributedOrders).toBe(1);
    await shipAll();
    const destination = await db.exportDestination.create({
      data: {
        id: newId("dst"),
        accountId: shop.campaign.advertiserId,
        name: "warehouse",
        bucket: "tally-export",
        region: "us-east-1",
        credentialKind: "access_key",
        accessKeyId: "AKIAEXAMPLE",
        types: ["ad_events", "orders", "order_items"],
        createdAt: noonOf(-44),
      },
    });
    expect((await retentionHolds(NOW)).map((hold) => hold.type)).toEqual(["orders"]);

    const held = await dropExpiredRawDays(NOW);
    expect(held.dropped).toContain(named("ad_events", -42));
    expect(held.dropped).not.toContain(named("conversions", -42));
    expect(held.dropped).not.toContain(named("attributions", -42));

    await db.exportWatermark.create({ data: { destinationId: destination.id, type: "orders", deliveredTo: new Date() } });
    const delivered = await dropExpiredRawDays(NOW);
    expect(delivered.dropped).toEqual(expect.arrayContaining([named("conversions", -42), named("attributions", -42)]));
    await db.exportDestination.update({ where: { id: destination.id }, data: { status: "disabled" } });
  });

  it("never drops a day holding a row not yet shipped, and drops the shipped days past what decisions look back on", async () => {
    // The days the first test's retention dropped while they were empty, made again.
    for (const table of ["ad_events", "conversions", "attributions"] as const) await createDayPartitions(noonOf(-41), table, { daysAhead: 49 });
    const old = await clickAndOrder(-40);
    await clickAndOrder(-20);
    await clickAndOrder(-5);
    expect((await attributePendingConversions({ settleMs: 0 })).attributedOrders).toBe(3);

    // Nothing shipped: every day with rows stays, however old.
    const unshipped = await dropExpiredRawDays(NOW);
    for (const offset of [-40, -20, -5]) {
      for (const table of ["ad_events", "conversions", "attributions"]) expect(unshipped.dropped).not.toContain(named(table, offset));
    }
    for (const table of ["ad_events", "conversions", "attributions"]) expect((await partitions()).has(named(table, -40))).toBe(true);

    // All shipped but the old click's batch: its day and every later day of ad events stay; the
    // old orders, shipped, go (past the de-duplication window and a day).
    await shipAll();
    await pgPool().query("UPDATE clickhouse_batches SET shipped_at = NULL WHERE id = (SELECT clickhouse_batch FROM ad_events WHERE session_id = $1)", [old]);
    const oneWaiting = await dropExpiredRawDays(NOW);
    expect(oneWaiting.dropped).toEqual(expect.arrayContaining([named("conversions", -40), named("attributions", -40)]));
    expect(oneWaiting.dropped).not.toContain(named("ad_events", -40));
    expect(oneWaiting.dropped).not.toContain(named("ad_events", -20));
    expect(Number((await pgPool().query("SELECT count(*) AS n FROM ad_events WHERE session_id = $1", [old])).rows[0].n)).toBe(1);

    // Shipped: ad events go past attribution's 14-day window and a day (20 days ago, well inside
    // TALLY_RAW_RETENTION_DAYS), orders stay for the 30-day de-duplication window and a day.
    await shipAll();
    const shipped = await dropExpiredRawDays(NOW);
    expect(shipped.dropped).toEqual(expect.arrayContaining([named("ad_events", -40), named("ad_events", -20)]));
    expect(shipped.dropped).not.toContain(named("conversions", -20));
    expect(shipped.dropped).not.toContain(named("ad_events", -5));
    const left = await partitions();
    for (const name of [named("conversions", -20), named("attributions", -20), named("ad_events", -5), named("ad_events", -15)])
      expect(left.has(name)).toBe(true);
    expect(left.has(named("ad_events", -16))).toBe(false);
  });
});
