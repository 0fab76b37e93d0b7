import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import type { EventKind } from "@/server/store/settle-types";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { rebuildRollups, verifyRollups } from "./verify-rollups.sql";

const BOT = "Googlebot/2.1 (+http://www.google.com/bot.html)";

describe("daily rollups", () => {
  it("follow stored events and attributions in the same transactions, and the check finds any drift", async () => {
    // Its checkout sends orders unsigned, and it credits them.
    const publisher = await makePublisher({ creditUnverified: true });
    const advertiser = await makeAdvertiser();
    const { campaign, ad, products } = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      bidModel: "cpm",
      bid: 8,
      products: [{ sku: `SKU-${randomUUID()}`, name: "Kettle" }],
    });
    const site = publisher.sites[0]!.name;
    const day = new Date("2026-11-21T12:00:00Z");
    const at = (minutes: number) => new Date(day.getTime() + minutes * 60_000);
    const beacon = (kind: EventKind, session: string, when: Date, userAgent = CHROME) =>
      recordAndSettle({
        claims: servedClaims({ ad, campaign, publisher }, session, { kind, at: when, placementName: "search-sponsored", context: "search" }),
        body: { session_id: session },
        userAgent,
        now: when,
      });

    const statuses = [
      await beacon("impression", "s1", at(0)),
      await beacon("impression", "s1", at(0.5)), // the same session within the minute: duplicate
      await beacon("impression", "s2", at(1)),
      await beacon("impression", "s3", at(2), BOT),
      await beacon("view", "s1", at(3)),
      await beacon("click", "s1", at(4)),
      await beacon("impression", "s9", new Date(day.getTime() - 86_400_000)), // the day before
    ].map((stored) => stored.status);
    expect(statuses).toEqual(["counted", "duplicate", "counted", "bot", "counted", "counted", "counted"]);

    await recordAndSettleConversion(
      {
        publisher_id: publisher.id,
        user_id: "buyer",
        session_id: "s1",
        order_id: "o-1",
        created_at: at(10).toISOString(),
        channel: "online store",
        email_hashed: createHash("sha256").update("buyer@example.com").digest("hex"),
        items: [
          { sku: products[0]!.sku, quantity: 2, price: 30, promotional_price: 25.5 },
          { sku: products[0]!.sku, quantity: 1, price: 30, promotional_price: 30 },
          { sku: "OTHER", quantity: 1, price: 3, promotional_price: 3 },
        ],
      },
      at(11),
    ); // received a minute after it was placed
    await attributePendingConversions({ settleMs: 0 });
    await attributePendingConversions({ settleMs: 0 });

    const rows = await db.dailyRollup.findMany({ where: { campaignId: campaign.id }, orderBy: { day: "asc" } });
    expect(
      rows.map((r) => ({
        day: r.day.toISOString().slice(0, 10),
        impressions: r.impressions,
        views: r.views,
        clicks: r.clicks,
        spend: r.spendMicros,
        duplicate: r.duplicateEvents,
        bot: r.botEvents,
        items: r.attributedItems,
        conversions: r.conversions,
        sales: BigInt(r.salesRevenueMicros.toFixed()),
        click: [r.conversionsClick, BigInt(r.salesRevenueClickMicros.toFixed()), r.convertedClicks],
        units: BigInt(r.unitsSoldMicros.toFixed()),
      })),
    ).toEqual([
      {
        day: "2026-11-20",
        impressions: 1n,
        views: 0n,
        clicks: 0n,
        spend: 8_000n,
        duplicate: 0n,
        bot: 0n,
        items: 0n,
        conversions: 0n,
        sales: 0n,
        click: [0n, 0n, 0n],
        units: 0n,
      },
      // CPM 8: 0.008 per counted impression, two of them; two lines (three units) credited to the
      // click, one order: a click-through order, and a converted click.
      {
        day: "2026-11-21",
        impressions: 2n,
        views: 1n,
        clicks: 1n,
        spend: 16_000n,
        duplicate: 1n,
        bot: 1n,
        items: 2n,
        conversions: 1n,
        sales: 81_000_000n,
        click: [1n, 81_000_000n, 1n],
        units: 3_000_000n,
      },
    ]);
    expect(rows.every((r) => r.publisherId === publisher.id && r.site === site && r.adId === ad.id && r.placementName === "search-sponsored")).toBe(true);
    expect(await verifyRollups("2026-11-01", "2026-11-30")).toEqual([]);

    await db.dailyRollup.updateMany({ where: { campaignId: campaign.id, day: new Date("2026-11-21") }, data: { clicks: { increment: 1 } } });
    await db.attribution.deleteMany({ where: { orderId: "o-1", itemPosition: 1 } });
    // The clicks were changed in daily_rollups only; the deleted line is missing from all three tables.
    const drift = await verifyRollups("2026-11-01", "2026-11-30");
    expect(drift.filter((d) => d.table === "daily_ad_totals").map((d) => d.publisher_id)).toEqual([...Array(6).fill(""), ...Array(6).fill(publisher.id)]);
    // The order came without proof: its sales are unverified sales too.
    expect(drift.map((d) => [d.table, d.day, d.campaign_id, d.measure, d.stored, d.recounted])).toEqual([
      ["daily_rollups", "2026-11-21", campaign.id, "attributed_items", "2", "1"],
      ["daily_rollups", "2026-11-21", campaign.id, "clicks", "2", "1"],
      ["daily_rollups", "2026-11-21", campaign.id, "ntb_sales_revenue_micros", "81000000", "51000000"],
      ["daily_rollups", "2026-11-21", campaign.id, "sales_revenue_click_micros", "81000000", "51000000"],
      ["daily_rollups", "2026-11-21", campaign.id, "sales_revenue_micros", "81000000", "51000000"],
      ["daily_rollups", "2026-11-21", campaign.id, "units_sold_micros", "3000000", "2000000"],
      ["daily_rollups", "2026-11-21", campaign.id, "unverified_sales_revenue_micros", "81000000", "51000000"],
      ["daily_campaign_totals", "2026-11-21", campaign.id, "attributed_items", "2", "1"],
      ["daily_campaign_totals", "2026-11-21", campaign.id, "ntb_sales_revenue_micros", "81000000", "51000000"],
      ["daily_campaign_totals", "2026-11-21", campaign.id, "sales_revenue_click_micros", "81000000", "51000000"],
      ["daily_campaign_totals", "2026-11-21", campaign.id, "sales_revenue_micros", "81000000", "51000000"],
      ["daily_campaign_totals", "2026-11-21", campaign.id, "units_sold_micros", "3000000", "2000000"],
      ["daily_campaign_totals", "2026-11-21", campaign.id, "unverified_sales_revenue_micros", "81000000", "51000000"],
      // The ad's row over every publisher (''), then its row for the publisher.
      ["daily_ad_totals", "2026-11-21", campaign.id, "attributed_items", "2", "1"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "ntb_sales_revenue_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "sales_revenue_click_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "sales_revenue_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "units_sold_micros", "3000000", "2000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "unverified_sales_revenue_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "attributed_items", "2", "1"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "ntb_sales_revenue_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "sales_revenue_click_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "sales_revenue_micros", "81000000", "51000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "units_sold_micros", "3000000", "2000000"],
      ["daily_ad_totals", "2026-11-21", campaign.id, "unverified_sales_revenue_micros", "81000000", "51000000"],
    ]);
    // Outside the days asked, nothing is compared.
    expect(await verifyRollups("2026-11-20", "2026-11-20")).toEqual([]);

    // A rebuild of those days makes the rows agree with the raw tables again, and leaves other days alone.
    await db.dailyRollup.updateMany({ where: { campaignId: campaign.id, day: new Date("2026-11-20") }, data: { views: { increment: 5 } } });
    expect(await rebuildRollups("2026-11-21", "2026-11-21")).toBeGreaterThan(0);
    expect(await verifyRollups("2026-11-21", "2026-11-21")).toEqual([]);
    const repaired = await db.dailyRollup.findFirstOrThrow({ where: { campaignId: campaign.id, day: new Date("2026-11-21") } });
    expect(repaired).toMatchObject({ clicks: 1n, attributedItems: 1n });
    expect(repaired.salesRevenueMicros.toFixed()).toBe("51000000");
    expect((await verifyRollups("2026-11-20", "2026-11-20")).map((d) => [d.table, d.measure])).toEqual([["daily_rollups", "views"]]);

    // With no line of the order left credited, the order counts per publisher disagree too.
    await db.attribution.deleteMany({ where: { orderId: "o-1" } });
    const orders = (await verifyRollups("2026-11-21", "2026-11-21")).filter((d) => d.table === "daily_publisher_orders");
    expect(orders.map((d) => [d.publisher_id, d.advertiser_id, d.measure, d.stored, d.recounted])).toEqual([
      [publisher.id, "", "conversions", "1", "0"],
      [publisher.id, "", "conversions_click", "1", "0"],
      [publisher.id, "", "ntb_conversions", "1", "0"],
      [publisher.id, "", "unverified_conversions", "1", "0"],
      [publisher.id, advertiser.id, "conversions", "1", "0"],
      [publisher.id, advertiser.id, "conversions_click", "1", "0"],
      [publisher.id, advertiser.id, "ntb_conversions", "1", "0"],
      [publisher.id, advertiser.id, "unverified_conversions", "1", "0"],
    ]);
  });

  it("count each daily_ad_totals row once in daily_ad_row_counts, whichever writer inserts it", async () => {
    const [first, second] = [await makePublisher({ creditUnverified: true }), await makePublisher({ creditUnverified: true })];
    const advertiser = await makeAdvertiser();
    const sku = `SKU-${randomUUID()}`;
    const { campaign, ad } = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [first.id, second.id],
      type: "product",
      products: [{ sku, name: "Toaster" }],
    });
    const day = new Date("2026-11-18T10:00:00Z");
    const beacon = (publisher: typeof first, kind: EventKind, session: string, minutes: number, user?: string) =>
      recordAndSettle({
        claims: servedClaims({ ad, campaign, publisher }, session, { kind, at: new Date(day.getTime() + minutes * 60_000) }),
        body: { session_id: session, ...(user ? { user_id: user } : {}) },
        userAgent: CHROME,
        now: new Date(day.getTime() + minutes * 60_000),
      });
    // Separate batches for the same keys: the first inserts the rows, the others only add to them.
    await beacon(first, "impression", "a", 0);
    await beacon(first, "impression", "b", 2);
    await beacon(first, "click", "a", 3, "shopper");
    await beacon(second, "impression", "c", 4);
    const counts = () =>
      db.dailyAdRowCount
        .findMany({ where: { campaignId: campaign.id }, orderBy: { day: "asc" } })
        .then((rows) => rows.map((r) => [r.day.toISOString().slice(0, 10), r.adRows, r.adPublisherRows]));
    expect(await counts()).toEqual([["2026-11-18", 1n, 2n]]);

    // An order the next day credits the click: the attribution writer inserts that day's rows.
    await recordAndSettleConversion(
      {
        publisher_id: first.id,
        user_id: "shopper",
        session_id: "a",
        order_id: `o-${randomUUID()}`,
        created_at: "2026-11-19T09:00:00Z",
        channel: "online store",
        email_hashed: createHash("sha256").update("shopper@example.com").digest("hex"),
        items: [{ sku, quantity: 1, price: 20, promotional_price: 20 }],
      },
      new Date("2026-11-19T09:01:00Z"),
    );
    await attributePendingConversions({ settleMs: 0 });
    expect(await counts()).toEqual([
      ["2026-11-18", 1n, 2n],
      ["2026-11-19", 1n, 1n],
    ]);
    expect(await verifyRollups("2026-11-18", "2026-11-19")).toEqual([]);

    // A wrong count is reported against a count of daily_ad_totals, and a rebuild puts it right.
    await db.dailyAdRowCount.updateMany({ where: { campaignId: campaign.id, day: new Date("2026-11-18") }, data: { adPublisherRows: 5 } });
    expect((await verifyRollups("2026-11-18", "2026-11-19")).map((d) => [d.table, d.day, d.campaign_id, d.measure, d.stored, d.recounted])).toEqual([
      ["daily_ad_row_counts", "2026-11-18", campaign.id, "ad_publisher_rows", "5", "2"],
    ]);
    await rebuildRollups("2026-11-18", "2026-11-19");
    expect(await counts()).toEqual([
      ["2026-11-18", 1n, 2n],
      ["2026-11-19", 1n, 1n],
    ]);
  });
});
