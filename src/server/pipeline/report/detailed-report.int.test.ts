// GET /report/advertisers/campaigns-detailed and /report/advertisers/ads-detailed: a network brand's
// data of its own, and seedAcme's (report-fixture.ts) for another advertiser's and a publisher's keys.

import { createHash, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { ADS_DETAILED } from "@/server/pipeline/report/report-definitions";
import { significant } from "@/server/store/metrics";
import { handleAdsDetailed, handleCampaignsDetailed } from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { at, beacon, type Fixture, get, seedAcme } from "@/testing/report-fixture";
import { reportSheet } from "@/testing/report-sheet";
import { recordAndSettleConversion } from "@/testing/settle";

let advertiserKey: string;
let shopAKey: string;
let acmeId: string;

beforeAll(async () => {
  ({ advertiserKey, shopAKey, acmeId } = await seedAcme());
});

describe("GET /report/advertisers/campaigns-detailed and /report/advertisers/ads-detailed", () => {
  let brandKey: string;
  let direct: Fixture;
  let onNetwork: Fixture;
  let networkId: string;
  let subOne: string;
  let subTwo: string;

  // A brand runs a CPM campaign (bid 4) through a network with sub-publishers S1 and S2, and a
  // direct CPC campaign (bid 0.50) on shop X. 10 Nov: S1 has 2 impressions (plus a duplicate)
  // and 1 click, then an order of 1 × 12.00 credited to that click; S2 has 1 impression and
  // 1 click; X has 2 impressions and 1 click. 11 Nov: S2 has 1 impression.
  beforeAll(async () => {
    const network = await createAccount({ actor: OPERATOR, kind: "network", name: `Network ${randomUUID()}` });
    const [s1, s2, shopX] = [
      await makePublisher({ networkId: network.id, creditUnverified: true }),
      await makePublisher({ networkId: network.id, creditUnverified: true }),
      await makePublisher({ creditUnverified: true }),
    ];
    const brand = await makeAdvertiser();
    onNetwork = await makeCampaignWithAd({
      advertiserId: brand.id,
      publisherIds: [network.id],
      type: "product",
      bidModel: "cpm",
      bid: 4,
      products: [{ sku: `T-${randomUUID()}`, name: "Tea" }],
    });
    direct = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [shopX.id], bidModel: "cpc", bid: 0.5 });
    await beacon("impression", onNetwork, s1, "t1", at(0));
    await beacon("impression", onNetwork, s1, "t2", at(1));
    await beacon("impression", onNetwork, s1, "t2", at(1));
    await beacon("impression", onNetwork, s2, "u1", at(2));
    await beacon("click", onNetwork, s1, "t1", at(3));
    await beacon("click", onNetwork, s2, "u1", at(4));
    await beacon("impression", direct, shopX, "x1", at(5));
    await beacon("impression", direct, shopX, "x2", at(6));
    await beacon("click", direct, shopX, "x1", at(7));
    await beacon("impression", onNetwork, s2, "u2", at(24 * 60 + 5));
    await recordAndSettleConversion(
      {
        publisher_id: s1.id,
        user_id: "shopper-t1",
        session_id: "t1",
        order_id: `o-${randomUUID()}`,
        created_at: at(30).toISOString(),
        channel: "web",
        email_hashed: createHash("sha256").update("t1@example.com").digest("hex"),
        items: [{ sku: onNetwork.products[0]!.sku, quantity: 1, price: 15, promotional_price: 12 }],
      },
      at(31),
    );
    await attributePendingConversions({ settleMs: 0 });
    brandKey = (await createApiKey({ actor: OPERATOR, accountId: brand.id, name: "t" })).key;
    [networkId, subOne, subTwo] = [network.id, s1.id, s2.id];
  });

  const RANGE_10_11 = "start_date=2026-11-10&end_date=2026-11-11";
  const metrics = (m: { impressions: number; clicks: number; spend: number; conversions?: number; sales?: number; duplicates?: number }) => ({
    impressions_total: m.impressions,
    views_total: 0,
    clicks_total: m.clicks,
    ctr: significant(m.clicks / m.impressions),
    ad_revenue: m.spend,
    conversions_total: m.conversions ?? 0,
    conversion_rate: significant((m.conversions ?? 0) / m.clicks),
    sales_revenue: m.sales ?? 0,
    roas: significant((m.sales ?? 0) / m.spend),
    duplicate_events: m.duplicates ?? 0,
    bot_events: 0,
    invalid_events: 0,
    // Every order of the fixture came without proof, from publishers that credit such orders.
    unverified_conversions: m.conversions ?? 0,
    unverified_sales_revenue: m.sales ?? 0,
    uncredited_conversions: 0,
    uncredited_sales_revenue: 0,
    // Every order of the fixture is one unit credited to its own click.
    conversions_click: m.conversions ?? 0,
    conversions_view: 0,
    sales_revenue_click: m.sales ?? 0,
    sales_revenue_view: 0,
    units_sold: m.conversions ?? 0,
    converted_clicks: m.conversions ?? 0,
    click_conversion_rate: m.clicks === 0 ? null : significant((m.conversions ?? 0) / m.clicks),
    halo_conversions: 0,
    halo_sales_revenue: 0,
    // Every order is its shopper's first of the brand.
    ntb_conversions: m.conversions ?? 0,
    ntb_sales_revenue: m.sales ?? 0,
    ntb_rate: m.conversions ? 1 : null,
    ecpm: (m.spend * 1000) / m.impressions,
    avg_cpc: m.clicks === 0 ? null : m.spend / m.clicks,
    cpa: m.conversions ? m.spend / m.conversions : null,
    acos: m.sales ? significant(m.spend / m.sales) : null,
  });
  const ratiosOver = (row: Record<string, unknown>) => ({ ...row, conversion_rate: Number.isFinite(row.conversion_rate) ? row.conversion_rate : 0 });

  it("answers a row per campaign and day, each network campaign's total followed by its sub-publishers", async () => {
    const { status, body } = await get(brandKey, RANGE_10_11, handleCampaignsDetailed);
    expect(status).toBe(200);
    const campaignFields = (f: Fixture) => ({
      campaign_id: f.campaign.id,
      name: f.campaign.name,
      campaign_type: f.campaign.type,
      advertiser_id: f.campaign.advertiserId,
    });
    const networkDay10 = [
      {
        day: "2026-11-10",
        level: "campaign",
        ...campaignFields(onNetwork),
        network_id: networkId,
        publisher_id: null,
        publisher: null,
        ...metrics({ impressions: 3, clicks: 2, spend: 0.012, conversions: 1, sales: 12, duplicates: 1 }),
      },
      ...[
        { publisher_id: subOne, m: metrics({ impressions: 2, clicks: 1, spend: 0.008, conversions: 1, sales: 12, duplicates: 1 }) },
        { publisher_id: subTwo, m: metrics({ impressions: 1, clicks: 1, spend: 0.004 }) },
      ]
        .sort((a, b) => a.publisher_id.localeCompare(b.publisher_id))
        .map(({ publisher_id, m }) => ({
          day: "2026-11-10",
          level: "sub_publisher",
          ...campaignFields(onNetwork),
          network_id: networkId,
          publisher_id,
          publisher: expect.stringMatching(/^Shop /),
          ...m,
        })),
    ];
    const directDay10 = [
      {
        day: "2026-11-10",
        level: "campaign",
        ...campaignFields(direct),
        network_id: null,
        publisher_id: null,
        publisher: null,
        ...metrics({ impressions: 2, clicks: 1, spend: 0.5 }),
      },
    ];
    const day11 = [
      {
        day: "2026-11-11",
        level: "campaign",
        ...campaignFields(onNetwork),
        network_id: networkId,
        publisher_id: null,
        publisher: null,
        ...ratiosOver(metrics({ impressions: 1, clicks: 0, spend: 0.004 })),
      },
      {
        day: "2026-11-11",
        level: "sub_publisher",
        ...campaignFields(onNetwork),
        network_id: networkId,
        publisher_id: subTwo,
        publisher: expect.stringMatching(/^Shop /),
        ...ratiosOver(metrics({ impressions: 1, clicks: 0, spend: 0.004 })),
      },
    ];
    // Newest day first; groups of one day by campaign id.
    const day10 = onNetwork.campaign.id < direct.campaign.id ? [...networkDay10, ...directDay10] : [...directDay10, ...networkDay10];
    expect(body).toEqual({ data: [...day11, ...day10], page: 1, per_page: 50, total: 6 });
  });

  it("sorts groups by their total row, keeps sub-publisher rows with their total, and pages", async () => {
    const byImpressions = (await get(brandKey, `${RANGE_10_11}&order_by=impressions_total`, handleCampaignsDetailed)).body.data;
    expect(byImpressions.map((r) => [r.day, r.level, r.impressions_total])).toEqual([
      ["2026-11-10", "campaign", 3],
      ["2026-11-10", "sub_publisher", 2],
      ["2026-11-10", "sub_publisher", 1],
      ["2026-11-10", "campaign", 2],
      ["2026-11-11", "campaign", 1],
      ["2026-11-11", "sub_publisher", 1],
    ]);
    const pages = [1, 2, 3].map((page) => get(brandKey, `${RANGE_10_11}&order_by=impressions_total&per_page=2&page=${page}`, handleCampaignsDetailed));
    const joined = (await Promise.all(pages)).flatMap((p) => p.body.data);
    expect(joined).toEqual(byImpressions);
    expect((await get(brandKey, `${RANGE_10_11}&campaign_id=${direct.campaign.id}`, handleCampaignsDetailed)).body.data.map((r) => r.campaign_id)).toEqual([
      direct.campaign.id,
    ]);
    // Sorted by day (computed a day window at a time), any page size gives the same rows in the same order.
    for (const handler of [handleCampaignsDetailed, handleAdsDetailed]) {
      for (const order of ["desc", "asc"]) {
        const whole = (await get(brandKey, `${RANGE_10_11}&order=${order}`, handler)).body;
        expect(whole.total).toBe(6);
        for (const perPage of [1, 2, 4, 5]) {
          const parts = [];
          for (let page = 1; page <= Math.ceil(6 / perPage) + 1; page += 1) {
            const part = (await get(brandKey, `${RANGE_10_11}&order=${order}&per_page=${perPage}&page=${page}`, handler)).body;
            expect(part.total).toBe(6);
            parts.push(...part.data);
          }
          expect(parts).toEqual(whole.data);
        }
      }
    }
    // One ad's rows are counted from its own keys; all ads' rows from the per-campaign row counts.
    const allAds = (await get(brandKey, RANGE_10_11, handleAdsDetailed)).body.data;
    const oneAd = (await get(brandKey, `${RANGE_10_11}&ad_id=${onNetwork.ad.id}&per_page=2`, handleAdsDetailed)).body;
    expect(oneAd.total).toBe(allAds.filter((r) => r.ad_id === onNetwork.ad.id).length);
    expect(oneAd.data).toEqual(allAds.filter((r) => r.ad_id === onNetwork.ad.id).slice(0, 2));
  });

  it("is for advertiser keys, shows a brand only its own campaigns, and refuses what it does not take", async () => {
    expect((await get(advertiserKey, `${RANGE_10_11}&campaign_id=${onNetwork.campaign.id}`, handleCampaignsDetailed)).body.total).toBe(0);
    expect((await get(advertiserKey, RANGE_10_11, handleAdsDetailed)).body.data.every((r) => r.advertiser_id === acmeId)).toBe(true);
    for (const handler of [handleCampaignsDetailed, handleAdsDetailed]) {
      const refused = await get(shopAKey, RANGE_10_11, handler);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ error: { code: "not_found", message: "this report is for advertiser accounts" } });
      expect((await get(brandKey, "publisher_id=x", handler)).status).toBe(400);
    }
    expect((await get(brandKey, "ad_id=x", handleCampaignsDetailed)).status).toBe(400);
  });

  it("answers a row per ad and day with the same breakdown, and downloads the same rows as XLSX", async () => {
    const ads = (await get(brandKey, `${RANGE_10_11}&order_by=impressions_total`, handleAdsDetailed)).body;
    const campaigns = (await get(brandKey, `${RANGE_10_11}&order_by=impressions_total`, handleCampaignsDetailed)).body;
    // One ad per campaign: the same rows, named by ad.
    expect(ads.total).toBe(6);
    expect(ads.data[0]).toMatchObject({
      day: "2026-11-10",
      level: "ad",
      ad_id: onNetwork.ad.id,
      name: onNetwork.ad.name,
      ad_type: onNetwork.ad.type,
      campaign_id: onNetwork.campaign.id,
      campaign: onNetwork.campaign.name,
    });
    const metricKeys = [
      "impressions_total",
      "clicks_total",
      "ad_revenue",
      "conversions_total",
      "sales_revenue",
      "duplicate_events",
      "publisher_id",
      "network_id",
      "day",
    ];
    const pick = (row: Record<string, unknown>) => metricKeys.map((k) => row[k]);
    expect(ads.data.map(pick)).toEqual(campaigns.data.map(pick));

    const response = await handleAdsDetailed(
      new Request(`http://tally.test/report/advertisers/ads-detailed?${RANGE_10_11}&order_by=impressions_total&download=true`, {
        headers: { Authorization: `Bearer ${brandKey}` },
      }),
    );
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="ads-detailed_2026-11-10_2026-11-11.xlsx"');
    const { fields, rows: fromSheet, totals } = await reportSheet(await response.arrayBuffer(), ADS_DETAILED.columns);
    expect(fields).toEqual(Object.keys(ads.data[0]!));
    expect(fromSheet).toEqual(ads.data.map((row) => ({ ...row, day: new Date(`${row.day as string}T00:00:00Z`) })));
    // The totals add up the ad rows only: the sub-publisher rows break them down.
    const adRows = ads.data.filter((row) => row.level !== "sub_publisher");
    expect(adRows.length).toBeLessThan(ads.data.length);
    expect(totals).toMatchObject({ day: "Total", level: null, impressions_total: adRows.reduce((n, row) => n + (row.impressions_total as number), 0) });

    // The default order (by day) downloads every row too, in the JSON's order.
    const byDay = await handleAdsDetailed(
      new Request(`http://tally.test/report/advertisers/ads-detailed?${RANGE_10_11}&download=true`, { headers: { Authorization: `Bearer ${brandKey}` } }),
    );
    const daySheet = await reportSheet(await byDay.arrayBuffer(), ADS_DETAILED.columns);
    const jsonByDay = (await get(brandKey, RANGE_10_11, handleAdsDetailed)).body.data;
    expect(daySheet.rows.length).toBe(jsonByDay.length);
    expect(daySheet.rows.map((row) => row.impressions_total)).toEqual(jsonByDay.map((r) => r.impressions_total));
  });
});
