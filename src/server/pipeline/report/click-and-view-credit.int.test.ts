// Click- and view-through credit, units sold, converted clicks, halo and new-to-brand in every
// report route, JSON and XLSX, on a fixture whose figures are worked out by hand below.
import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { CAMPAIGN_LISTING } from "@/server/pipeline/report/report-definitions";
import { store } from "@/server/store";
import { significant } from "@/server/store/metrics";
import {
  handleAdResults,
  handleAdvertiserReport,
  handleCampaignDetail,
  handleCampaignListing,
  handleCampaignsDetailed,
  handlePublisherReport,
} from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { at, beacon, type Fixture, get } from "@/testing/report-fixture";
import { reportSheet } from "@/testing/report-sheet";
import { recordAndSettleConversion } from "@/testing/settle";

// A brand runs P (CPC 0.50: Tea and Cup) and Q (CPM: Mug) on one shop, whose catalogue also gives
// the brand Honey, which no campaign sells. On 10 Nov:
// - shopper a: P impression, P click, Q view; shopper b: P impression, P view; shopper c: P
//   impression, P click (never followed by an order);
// - order 1 (a): Tea 2 × 9.00 from P's click, Mug 1 × 4.00 from Q's view;
// - order 2 (b): Tea 1.5 × 4.00 and Cup 1 × 5.00, both from P's view (view-through), and Honey
//   1 × 3.00, credited to P's view as halo;
// on 11 Nov, order 3 (a): Cup 1 × 5.00, from the same click of 10 Nov.
// So P: 3 orders (2 click-through), sales 34 (23 from the click), 5.5 units, 1 of its 2 clicks
// converted, a halo order of 3.00; Q: 1 view-through order of 4.00; the brand: 3 orders, of which
// 2 have a click line. Orders 1 and 2 are their shoppers' first of the brand (new to it), order 3
// is a's second.
const RANGE = "start_date=2026-11-10&end_date=2026-11-11";
let brandKey: string;
let p: Fixture;
let q: Fixture;

interface Credit {
  conversions: number;
  click: number;
  sales: number;
  salesClick: number;
  units: number;
  clicks: number;
  converted: number;
  halo?: [orders: number, sales: number];
  ntb?: [orders: number, sales: number];
}
const credit = (m: Credit) => ({
  clicks_total: m.clicks,
  conversions_total: m.conversions,
  sales_revenue: m.sales,
  conversions_click: m.click,
  conversions_view: m.conversions - m.click,
  sales_revenue_click: m.salesClick,
  sales_revenue_view: m.sales - m.salesClick,
  units_sold: m.units,
  converted_clicks: m.converted,
  click_conversion_rate: m.clicks === 0 ? null : significant(m.converted / m.clicks),
  halo_conversions: m.halo?.[0] ?? 0,
  halo_sales_revenue: m.halo?.[1] ?? 0,
  ntb_conversions: m.ntb?.[0] ?? 0,
  ntb_sales_revenue: m.ntb?.[1] ?? 0,
  ntb_rate: m.conversions === 0 ? null : significant((m.ntb?.[0] ?? 0) / m.conversions),
});
const P_TOTAL = credit({ conversions: 3, click: 2, sales: 34, salesClick: 23, units: 5.5, clicks: 2, converted: 1, halo: [1, 3], ntb: [2, 29] });
const Q_TOTAL = credit({ conversions: 1, click: 0, sales: 4, salesClick: 0, units: 1, clicks: 0, converted: 0, ntb: [1, 4] });
// Order 1 has a line from a click (P's), so the brand counts it click-through, though Q's line came from a view.
const BRAND_TOTAL = credit({ conversions: 3, click: 2, sales: 38, salesClick: 23, units: 6.5, clicks: 2, converted: 1, halo: [1, 3], ntb: [2, 33] });

beforeAll(async () => {
  const shop = await makePublisher({ creditUnverified: true }); // its orders come unsigned
  const brand = await makeAdvertiser();
  p = await makeCampaignWithAd({
    advertiserId: brand.id,
    publisherIds: [shop.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [
      { sku: `TEA-${randomUUID()}`, name: "Tea" },
      { sku: `CUP-${randomUUID()}`, name: "Cup" },
    ],
  });
  q = await makeCampaignWithAd({
    advertiserId: brand.id,
    publisherIds: [shop.id],
    type: "product",
    bidModel: "cpm",
    bid: 10,
    products: [{ sku: `MUG-${randomUUID()}`, name: "Mug" }],
  });
  const [tea, cup] = p.products.map((product) => product.sku);
  const mug = q.products[0]!.sku;
  const honey = `HONEY-${randomUUID()}`;
  await db.publisherCatalogueEntry.create({ data: { publisherId: shop.id, sku: honey, advertiserId: brand.id } });
  await beacon("impression", p, shop, "a", at(0));
  await beacon("click", p, shop, "a", at(1));
  await beacon("view", q, shop, "a", at(2));
  await beacon("impression", p, shop, "b", at(3));
  await beacon("view", p, shop, "b", at(4));
  await beacon("impression", p, shop, "c", at(5));
  await beacon("click", p, shop, "c", at(6));
  const order = async (session: string, minutes: number, items: { sku: string; quantity: number; promotional_price: number }[]) =>
    recordAndSettleConversion(
      {
        publisher_id: shop.id,
        user_id: `user-${session}`,
        session_id: session,
        order_id: `o-${randomUUID()}`,
        created_at: at(minutes).toISOString(),
        channel: "online store",
        email_hashed: createHash("sha256").update(`${session}@example.com`).digest("hex"),
        items: items.map((item) => ({ ...item, price: item.promotional_price })),
      },
      at(minutes + 1),
    );
  await order("a", 30, [
    { sku: tea!, quantity: 2, promotional_price: 9 },
    { sku: mug, quantity: 1, promotional_price: 4 },
  ]);
  await order("b", 40, [
    { sku: tea!, quantity: 1.5, promotional_price: 4 },
    { sku: cup!, quantity: 1, promotional_price: 5 },
    { sku: honey, quantity: 1, promotional_price: 3 },
  ]);
  await order("a", 24 * 60 + 30, [{ sku: cup!, quantity: 1, promotional_price: 5 }]);
  await attributePendingConversions({ settleMs: 0 });
  brandKey = (await createApiKey({ actor: OPERATOR, accountId: brand.id, name: "t" })).key;
});

describe("click- and view-through credit", () => {
  it("splits each campaign's and ad's orders and sales by the touch that won them, and counts a click converted once", async () => {
    const campaigns = (await get(brandKey, `${RANGE}&order_by=clicks_total&order=desc`)).body.data;
    expect(campaigns).toEqual([
      expect.objectContaining({ campaign_id: p.campaign.id, ...P_TOTAL }),
      expect.objectContaining({ campaign_id: q.campaign.id, ...Q_TOTAL }),
    ]);
    // The interface's rate counts orders per click and passes 1 here; the click-through rate cannot.
    expect(campaigns[0]).toMatchObject({ conversion_rate: 1.5, click_conversion_rate: 0.5 });
    const ads = (await get(brandKey, `${RANGE}&order_by=clicks_total&order=desc`, handleAdResults)).body.data;
    expect(ads).toEqual([expect.objectContaining({ ad_id: p.ad.id, ...P_TOTAL }), expect.objectContaining({ ad_id: q.ad.id, ...Q_TOTAL })]);
  });

  it("counts an order click-through for an advertiser or a publisher when any of its lines came from a click", async () => {
    expect((await get(brandKey, RANGE, handleAdvertiserReport)).body.data).toEqual([expect.objectContaining(BRAND_TOTAL)]);
    expect((await get(brandKey, RANGE, handlePublisherReport)).body.data).toEqual([expect.objectContaining(BRAND_TOTAL)]);
  });

  it("puts an order on the day it was placed and a converted click on the day it was clicked", async () => {
    const response = await handleCampaignDetail(
      new Request(`http://tally.test/campaign/${p.campaign.id}?${RANGE}`, { headers: { Authorization: `Bearer ${brandKey}` } }),
    );
    const { data } = (await response.json()) as { data: Record<string, unknown> & { daily: Record<string, unknown>[] } };
    expect(data).toMatchObject(P_TOTAL);
    expect(data.daily).toEqual([
      expect.objectContaining({
        day: "2026-11-10",
        ...credit({ conversions: 2, click: 1, sales: 29, salesClick: 18, units: 4.5, clicks: 2, converted: 1, halo: [1, 3], ntb: [2, 29] }),
      }),
      // Order 3 is click-through on its own day, though its click converted (and counts) on 10 Nov.
      expect.objectContaining({ day: "2026-11-11", ...credit({ conversions: 1, click: 1, sales: 5, salesClick: 5, units: 1, clicks: 0, converted: 0 }) }),
    ]);
    const detailed = (await get(brandKey, `${RANGE}&order_by=day&order=asc&campaign_id=${p.campaign.id}`, handleCampaignsDetailed)).body.data;
    expect(detailed.map((row) => row.conversions_click)).toEqual([1, 1]);
    expect(detailed.map((row) => row.sales_revenue_view)).toEqual([11, 0]);
    expect(detailed.map((row) => row.converted_clicks)).toEqual([1, 0]);
    expect(detailed.map((row) => [row.halo_sales_revenue, row.ntb_conversions, row.ntb_rate])).toEqual([
      [3, 2, 1],
      [0, 0, 0],
    ]);
  });

  it("keeps conversions_click + conversions_view = conversions_total, and the click-through rate at most 1, on every row", async () => {
    const rows = [
      ...(await get(brandKey, RANGE)).body.data,
      ...(await get(brandKey, RANGE, handleAdResults)).body.data,
      ...(await get(brandKey, RANGE, handleCampaignsDetailed)).body.data,
    ];
    for (const row of rows) {
      expect(Number(row.conversions_click) + Number(row.conversions_view)).toBe(row.conversions_total);
      expect(Number(row.sales_revenue_click) + Number(row.sales_revenue_view)).toBeCloseTo(Number(row.sales_revenue), 6);
      if (row.click_conversion_rate !== null) expect(row.click_conversion_rate).toBeLessThanOrEqual(1);
    }
    expect(await store().rollups.verify("2026-11-10", "2026-11-11")).toEqual([]);
  });

  it("downloads the new columns as numbers after the interface's, with an empty cell for a rate without clicks", async () => {
    const response = await handleCampaignListing(
      new Request(`http://tally.test/campaign/v2?${RANGE}&order_by=clicks_total&order=desc&download=true`, {
        headers: { Authorization: `Bearer ${brandKey}` },
      }),
    );
    const { sheet, header, fields } = await reportSheet(await response.arrayBuffer(), CAMPAIGN_LISTING.columns);
    expect(fields.indexOf("conversions_click")).toBeGreaterThan(fields.indexOf("uncredited_sales_revenue"));
    expect(header[fields.indexOf("click_conversion_rate")]).toBe("Click conversion rate");
    const cell = (row: number, field: string) => sheet.getRow(row).getCell(fields.indexOf(field) + 1).value;
    expect(sheet.getRow(2).getCell(fields.indexOf("click_conversion_rate") + 1).numFmt).toBe("0.00%");
    expect([
      cell(2, "conversions_click"),
      cell(2, "conversions_view"),
      cell(2, "sales_revenue_click"),
      cell(2, "units_sold"),
      cell(2, "click_conversion_rate"),
    ]).toEqual([2, 1, 23, 5.5, 0.5]);
    expect([cell(3, "conversions_view"), cell(3, "sales_revenue_view"), cell(3, "click_conversion_rate")]).toEqual([1, 4, null]);
  });

  it("are counted for the days before them by their migration, from the attributions kept", async () => {
    // Its own shop and day: the migration ran before halo lines existed, so it counts every
    // credited line, and this fixture has none (the one above has, on 10 Nov).
    const shop = await makePublisher({ creditUnverified: true }); // its orders come unsigned
    const brand = await makeAdvertiser();
    const r = await makeCampaignWithAd({
      advertiserId: brand.id,
      publisherIds: [shop.id],
      type: "product",
      bidModel: "cpc",
      bid: 0.5,
      products: [
        { sku: `JAM-${randomUUID()}`, name: "Jam" },
        { sku: `OAT-${randomUUID()}`, name: "Oats" },
      ],
    });
    const day = 10 * 24 * 60; // 20 Nov
    await beacon("impression", r, shop, "z", at(day));
    await beacon("click", r, shop, "z", at(day + 1));
    await beacon("view", r, shop, "y", at(day + 2));
    for (const [session, minutes] of [
      ["z", 30],
      ["y", 40],
    ] as const) {
      await recordAndSettleConversion(
        {
          publisher_id: shop.id,
          user_id: `user-${session}`,
          session_id: session,
          order_id: `o-${randomUUID()}`,
          created_at: at(day + minutes).toISOString(),
          channel: "online store",
          email_hashed: createHash("sha256").update(`${session}@example.com`).digest("hex"),
          items: r.products.map((product, i) => ({ sku: product.sku, quantity: 1.5 + i, price: 2, promotional_price: 2 })),
        },
        at(day + minutes + 1),
      );
    }
    await attributePendingConversions({ settleMs: 0 });
    const key = (await createApiKey({ actor: OPERATOR, accountId: brand.id, name: "t" })).key;
    const range = "start_date=2026-11-20&end_date=2026-11-20";
    const before = (await get(key, range)).body.data;
    expect(before).toEqual([expect.objectContaining({ conversions_click: 1, conversions_view: 1, units_sold: 8, converted_clicks: 1 })]);
    // As the report tables were before the migration: none of the new figures.
    await pgPool().query("TRUNCATE converted_clicks");
    for (const table of ["daily_rollups", "daily_campaign_totals", "daily_ad_totals"]) {
      await pgPool().query(`UPDATE ${table} SET conversions_click = 0, sales_revenue_click_micros = 0, units_sold_micros = 0, converted_clicks = 0`);
    }
    await pgPool().query("UPDATE daily_publisher_orders SET conversions_click = 0");
    expect((await store().rollups.verify("2026-11-20", "2026-11-20")).length).toBeGreaterThan(0);
    const migration = await readFile("prisma/migrations/20261201000000_click_and_view_credit/migration.sql", "utf8");
    const history = migration.slice(migration.indexOf("-- Clicks that have earned credit so far"));
    for (const statement of history.split(";").filter((text) => text.replace(/--.*$/gm, "").trim() !== "")) await pgPool().query(statement);
    expect(await store().rollups.verify("2026-11-20", "2026-11-20")).toEqual([]);
    expect((await get(key, range)).body.data).toEqual(before);
  });
});
