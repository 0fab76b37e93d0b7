import { createHash, randomUUID } from "node:crypto";
import ExcelJS from "exceljs";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { attributePendingConversions } from "@/server/attribution/attribute-pending";
import { recordConversion } from "@/server/conversions/record-conversion";
import {
  handleAdResults,
  handleAdsDetailed,
  handleAdvertiserReport,
  handleCampaignDetail,
  handleCampaignListing,
  handleCampaignsDetailed,
  handleNetworkPublisherReport,
  handlePublisherReport,
} from "@/server/http/report-routes";
import { type EventKind, sessionHashOf } from "@/server/ingest/beacon-token";
import { recordBeacon } from "@/server/ingest/record-beacon";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
const DAY = new Date("2026-11-10T12:00:00Z");
const at = (minutes: number) => new Date(DAY.getTime() + minutes * 60_000);

type Fixture = Awaited<ReturnType<typeof makeCampaignWithAd>>;
async function beacon(kind: EventKind, { campaign, ad }: Fixture, publisher: { id: string; sites: { name: string }[] }, session: string, when: Date) {
  await recordBeacon({
    claims: {
      kind,
      requestId: randomUUID(),
      adId: ad.id,
      campaignId: campaign.id,
      advertiserId: campaign.advertiserId,
      publisherId: publisher.id,
      site: publisher.sites[0]!.name,
      placementName: "p",
      context: "search",
      adType: ad.type,
      adSize: ad.size,
      issuedAt: Math.floor(when.getTime() / 1000),
      sessionHash: sessionHashOf(session),
    },
    body: { session_id: session },
    userAgent: CHROME,
    now: when,
  });
}

let advertiserKey: string;
let otherAdvertiserKey: string;
let publisherKey: string;
let shopAKey: string;
let acmeId: string;
let shopAId: string;
let shopBId: string;
let otherId: string;
let cpc: Fixture;
let cpm: Fixture;
let othersCampaign: Fixture;

// Acme runs a CPC campaign (bid 0.50) on shops A and B and a CPM one (bid 10) on A. On 10 Nov:
// CPC: 4 impressions and 2 clicks on A, 1 impression on B; one order on A credits 2 lines
// (2 × 9.00 and 1 × 5.00) to a click. CPM: 2 impressions on A. Another advertiser has a campaign on A.
beforeAll(async () => {
  const [shopA, shopB] = [await makePublisher(), await makePublisher()];
  const acme = await makeAdvertiser();
  const other = await makeAdvertiser();
  cpc = await makeCampaignWithAd({
    advertiserId: acme.id,
    publisherIds: [shopA.id, shopB.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [
      { sku: `K-${randomUUID()}`, name: "Kettle" },
      { sku: `M-${randomUUID()}`, name: "Mug" },
    ],
  });
  cpm = await makeCampaignWithAd({ advertiserId: acme.id, publisherIds: [shopA.id], type: "display", bidModel: "cpm", bid: 10 });
  othersCampaign = await makeCampaignWithAd({ advertiserId: other.id, publisherIds: [shopA.id], bidModel: "cpm", bid: 3 });
  for (let i = 0; i < 4; i += 1) await beacon("impression", cpc, shopA, `s${i}`, at(i));
  await beacon("click", cpc, shopA, "s0", at(5));
  await beacon("click", cpc, shopA, "s1", at(6));
  await beacon("impression", cpc, shopB, "b0", at(7));
  await beacon("impression", cpm, shopA, "s0", at(8));
  await beacon("impression", cpm, shopA, "s1", at(9));
  await beacon("impression", othersCampaign, shopA, "s0", at(10));
  await recordConversion(
    {
      publisher_id: shopA.id,
      user_id: "u0",
      session_id: "s0",
      order_id: "o-1",
      created_at: at(30).toISOString(),
      channel: "app",
      email_hashed: createHash("sha256").update("u0@example.com").digest("hex"),
      items: [
        { sku: cpc.products[0]!.sku, quantity: 2, price: 10, promotional_price: 9 },
        { sku: cpc.products[1]!.sku, quantity: 1, price: 5, promotional_price: 5 },
      ],
    },
    at(31),
  ); // received a minute after it was placed: the report's day is fixed, today is not
  await attributePendingConversions({ settleMs: 0 });
  advertiserKey = (await createApiKey({ accountId: acme.id, name: "t" })).key;
  otherAdvertiserKey = (await createApiKey({ accountId: other.id, name: "t" })).key;
  publisherKey = (await createApiKey({ accountId: shopB.id, name: "t" })).key;
  shopAKey = (await createApiKey({ accountId: shopA.id, name: "t" })).key;
  [acmeId, otherId, shopAId, shopBId] = [acme.id, other.id, shopA.id, shopB.id];
});

const get = async (key: string, query: string, handler = handleCampaignListing) => {
  const response = await handler(new Request(`http://tally.test/report?${query}`, { headers: { Authorization: `Bearer ${key}` } }));
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown>[]; page: number; per_page: number; total: number } };
};
const RANGE = "start_date=2026-11-01&end_date=2026-11-30";

describe("GET /campaign/v2", () => {
  it("lists the advertiser's campaigns with totals computed as the decisions define them", async () => {
    const { status, body } = await get(advertiserKey, RANGE);
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, per_page: 50, total: 2 });
    expect(body.data).toEqual([
      {
        campaign_id: cpc.campaign.id,
        name: cpc.campaign.name,
        campaign_type: "product",
        campaign_status: "active",
        advertiser_id: cpc.campaign.advertiserId,
        start_date: expect.any(String),
        end_date: expect.any(String),
        impressions_total: 5,
        views_total: 0,
        clicks_total: 2,
        ctr: 0.4,
        ad_revenue: 1,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: 23,
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
      },
      expect.objectContaining({
        campaign_id: cpm.campaign.id,
        impressions_total: 2,
        clicks_total: 0,
        ctr: 0,
        ad_revenue: 0.02,
        conversions_total: 0,
        conversion_rate: 0,
        sales_revenue: 0,
        roas: 0,
      }),
    ]);
  });

  it("sorts by a listed column, pages, and filters by campaign_id", async () => {
    expect((await get(advertiserKey, `${RANGE}&order_by=impressions_total&order=asc`)).body.data.map((r) => r.campaign_id)).toEqual([
      cpm.campaign.id,
      cpc.campaign.id,
    ]);
    const second = await get(advertiserKey, `${RANGE}&per_page=1&page=2`);
    expect(second.body).toMatchObject({ page: 2, per_page: 1, total: 2 });
    expect(second.body.data.map((r) => r.campaign_id)).toEqual([cpm.campaign.id]);
    expect((await get(advertiserKey, `${RANGE}&per_page=1&page=3`)).body).toEqual({ data: [], page: 3, per_page: 1, total: 2 });
    expect((await get(advertiserKey, `${RANGE}&campaign_id=${cpm.campaign.id}`)).body.data.map((r) => r.campaign_id)).toEqual([cpm.campaign.id]);
    // Outside the range, the campaigns are still listed, with zeros.
    expect((await get(advertiserKey, "start_date=2026-10-01&end_date=2026-10-31")).body.data.map((r) => r.impressions_total)).toEqual([0, 0]);
  });

  it("shows an account only its own rows", async () => {
    const others = await get(otherAdvertiserKey, RANGE);
    expect(others.body.data.map((r) => r.campaign_id)).toEqual([othersCampaign.campaign.id]);
    expect((await get(otherAdvertiserKey, `${RANGE}&campaign_id=${cpc.campaign.id}`)).body).toEqual({ data: [], page: 1, per_page: 50, total: 0 });
    // Shop B sees the campaign that runs on it, with its own numbers only.
    const shopB = await get(publisherKey, RANGE);
    expect(shopB.body.data).toEqual([
      expect.objectContaining({ campaign_id: cpc.campaign.id, impressions_total: 1, clicks_total: 0, ad_revenue: 0, conversions_total: 0, sales_revenue: 0 }),
    ]);
  });

  it("answers 400 naming a bad parameter, and 401 without a key", async () => {
    const bad = await get(advertiserKey, "order_by=spend");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: {
        code: "bad_request",
        message: "order_by must be one of impressions_total, clicks_total, ad_revenue, conversions_total, sales_revenue, ctr, name, start_date, not 'spend'",
      },
    });
    expect((await get("tly_nope", "")).status).toBe(401);
  });

  it("downloads every matching row as XLSX: the JSON's rows and columns, numbers as numbers, dates as dates", async () => {
    const response = await handleCampaignListing(
      new Request(`http://tally.test/campaign/v2?${RANGE}&per_page=1&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="campaigns_2026-11-01_2026-11-30.xlsx"');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const json = (await get(advertiserKey, RANGE)).body.data;
    expect(header).toEqual(Object.keys(json[0]!));
    // per_page is ignored: both campaigns are in the file.
    expect(sheet.rowCount).toBe(1 + json.length);
    json.forEach((row, index) => {
      const cells = (sheet.getRow(index + 2).values as unknown[]).slice(1);
      header.forEach((column, c) => {
        const expected = row[column as string];
        if (column === "start_date" || column === "end_date") expect(cells[c]).toEqual(new Date(`${expected as string}T00:00:00Z`));
        else expect(cells[c]).toEqual(expected);
      });
    });
    expect(typeof (sheet.getRow(2).values as unknown[])[header.indexOf("ctr") + 1]).toBe("number");
  });
});

describe("downloads", () => {
  it("read on the bulk pool, and give its connection back when the client stops reading half-way", async () => {
    const { bulkPool, pgPool } = await import("@/server/db/pg-pool");
    const response = await handleCampaignListing(
      new Request(`http://tally.test/campaign/v2?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    const reader = response.body!.getReader();
    const busy = () => bulkPool().totalCount - bulkPool().idleCount;
    // Read until the rows are being fetched: the cursor's connection is checked out.
    for (let chunks = 0; chunks < 50 && busy() === 0; chunks += 1) expect((await reader.read()).done).toBe(false);
    expect(busy()).toBe(1);
    // Not one of the requests' connections: those stay free for the 202s.
    expect(pgPool().totalCount - pgPool().idleCount).toBe(0);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(busy()).toBe(0);
    // The connection is usable: the next report answers.
    expect((await get(advertiserKey, RANGE)).status).toBe(200);
  });
});

describe("GET /ad/results/v2", () => {
  it("lists the advertiser's ads with their bids, SKUs and totals", async () => {
    const { status, body } = await get(advertiserKey, RANGE, handleAdResults);
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, per_page: 50, total: 2 });
    expect(body.data).toEqual([
      {
        ad_id: cpc.ad.id,
        name: cpc.ad.name,
        campaign_id: cpc.campaign.id,
        advertiser_id: cpc.campaign.advertiserId,
        ad_type: "product",
        ad_size: null,
        ad_status: "active",
        ad_media_url: null,
        cpm: null,
        cpc: 0.5,
        product_sku: cpc.products
          .map((p) => p.sku)
          .sort()
          .join(","),
        impressions_total: 5,
        views_total: 0,
        clicks_total: 2,
        ctr: 0.4,
        ad_revenue: 1,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: 23,
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
      },
      expect.objectContaining({
        ad_id: cpm.ad.id,
        ad_type: "banner",
        ad_size: "300x250",
        cpm: 10,
        cpc: null,
        product_sku: "",
        impressions_total: 2,
        ad_revenue: 0.02,
      }),
    ]);
  });

  it("filters by ad_id and campaign_id, keeps tenancy, and refuses parameters it does not take", async () => {
    expect((await get(advertiserKey, `${RANGE}&ad_id=${cpm.ad.id}`, handleAdResults)).body.data.map((r) => r.ad_id)).toEqual([cpm.ad.id]);
    expect((await get(otherAdvertiserKey, `${RANGE}&ad_id=${cpm.ad.id}`, handleAdResults)).body).toEqual({ data: [], page: 1, per_page: 50, total: 0 });
    expect((await get(publisherKey, RANGE, handleAdResults)).body.data).toEqual([expect.objectContaining({ ad_id: cpc.ad.id, impressions_total: 1 })]);
    expect((await get(advertiserKey, "publisher_id=x", handleAdResults)).status).toBe(400);
    expect((await get(advertiserKey, "order_by=start_date", handleAdResults)).status).toBe(400);
  });

  it("downloads the same rows as XLSX", async () => {
    const response = await handleAdResults(
      new Request(`http://tally.test/ad/results/v2?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="ad-results_2026-11-01_2026-11-30.xlsx"');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const json = (await get(advertiserKey, RANGE, handleAdResults)).body.data;
    expect(header).toEqual(Object.keys(json[0]!));
    const fromSheet = [2, 3].map((n) => Object.fromEntries(header.map((column, c) => [column, (sheet.getRow(n).values as unknown[])[c + 1] ?? null])));
    expect(fromSheet).toEqual(json.map((row) => ({ ...row, ad_size: row.ad_size ?? null, product_sku: row.product_sku === "" ? null : row.product_sku })));
  });
});

describe("GET /campaign/:id", () => {
  const detail = (key: string, id: string, query: string) =>
    handleCampaignDetail(new Request(`http://tally.test/campaign/${encodeURIComponent(id)}?${query}`, { headers: { Authorization: `Bearer ${key}` } }));
  const zeros = {
    impressions_total: 0,
    views_total: 0,
    clicks_total: 0,
    ctr: 0,
    ad_revenue: 0,
    conversions_total: 0,
    conversion_rate: 0,
    sales_revenue: 0,
    roas: 0,
    duplicate_events: 0,
    bot_events: 0,
    invalid_events: 0,
  };

  it("answers the campaign's totals, a row for every day of the range, and its ads", async () => {
    const response = await detail(advertiserKey, cpc.campaign.id, "start_date=2026-11-09&end_date=2026-11-11");
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Record<string, unknown> & { daily: unknown[]; ads: { ad_id: string }[] } };
    expect(data).toMatchObject({ campaign_id: cpc.campaign.id, impressions_total: 5, clicks_total: 2, ad_revenue: 1, conversions_total: 1, sales_revenue: 23 });
    expect(data.daily).toEqual([
      { day: "2026-11-09", ...zeros },
      {
        day: "2026-11-10",
        impressions_total: 5,
        views_total: 0,
        clicks_total: 2,
        ctr: 0.4,
        ad_revenue: 1,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: 23,
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
      },
      { day: "2026-11-11", ...zeros },
    ]);
    expect(data.ads.map((ad) => ad.ad_id)).toEqual([cpc.ad.id]);
    expect(data.ads_total).toBe(1);
  });

  it("is 404 for another account's campaign and unknown ids, and scoped for a publisher", async () => {
    for (const [key, id] of [
      [otherAdvertiserKey, cpc.campaign.id],
      [advertiserKey, "cmp_nothing"],
      [publisherKey, cpm.campaign.id],
    ] as const) {
      const response = await detail(key, id, RANGE);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: `no campaign ${id}` } });
    }
    const malformed = await handleCampaignDetail(
      new Request("http://tally.test/campaign/%E0%A4%A?start_date=2026-11-01", { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(malformed.status).toBe(404);
    const shopB = (await (await detail(publisherKey, cpc.campaign.id, RANGE)).json()) as { data: { impressions_total: number; sales_revenue: number } };
    expect(shopB.data).toMatchObject({ impressions_total: 1, sales_revenue: 0 });
    expect((await detail(advertiserKey, cpc.campaign.id, "page=2")).status).toBe(400);
  });

  it("downloads the daily rows as XLSX", async () => {
    const response = await detail(advertiserKey, cpc.campaign.id, "start_date=2026-11-09&end_date=2026-11-11&download=true");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="campaign-${cpc.campaign.id}_2026-11-09_2026-11-11.xlsx"`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.name).toBe("Daily");
    expect(sheet.rowCount).toBe(4);
    expect((sheet.getRow(3).values as unknown[]).slice(1, 5)).toEqual([new Date("2026-11-10T00:00:00Z"), 5, 0, 2]);
  });
});

describe("GET /report/v2/advertisers", () => {
  it("lists the advertisers of a publisher's inventory with their account fields and its figures", async () => {
    const { status, body } = await get(shopAKey, RANGE, handleAdvertiserReport);
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.data).toEqual([
      {
        advertiser: expect.stringMatching(/^Brand /),
        advertiser_id: acmeId,
        seller_id: expect.stringMatching(/^seller-/),
        // 1,000 less 2 clicks at 0.50 and 2 impressions at CPM 10.
        wallet_balance: 998.98,
        daily_budget: null,
        currency: "USD",
        impressions_total: 6,
        views_total: 0,
        clicks_total: 2,
        ctr: 2 / 6,
        ad_revenue: 1.02,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: 23 / 1.02,
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
      },
      expect.objectContaining({ advertiser_id: otherId, impressions_total: 1, ad_revenue: 0.003, wallet_balance: 999.997 }),
    ]);
    // Shop B: only Acme's one impression there.
    expect((await get(publisherKey, RANGE, handleAdvertiserReport)).body.data).toEqual([
      expect.objectContaining({ advertiser_id: acmeId, impressions_total: 1, ad_revenue: 0 }),
    ]);
  });

  it("shows an advertiser only itself, and sorts by name", async () => {
    expect((await get(advertiserKey, RANGE, handleAdvertiserReport)).body.data.map((r) => r.advertiser_id)).toEqual([acmeId]);
    expect((await get(advertiserKey, `${RANGE}&advertiser_id=${otherId}`, handleAdvertiserReport)).body.total).toBe(0);
    const byName = (await get(shopAKey, `${RANGE}&order_by=advertiser&order=asc`, handleAdvertiserReport)).body.data.map((r) => r.advertiser as string);
    expect(byName).toEqual([...byName].sort());
  });
});

describe("GET /report/v2/publishers and /report/network/publishers", () => {
  it("lists an advertiser's publishers with its own figures there, and a publisher itself", async () => {
    const { body } = await get(advertiserKey, RANGE, handlePublisherReport);
    expect(body.data).toEqual([
      expect.objectContaining({
        publisher_id: shopAId,
        network_id: null,
        impressions_total: 6,
        clicks_total: 2,
        ad_revenue: 1.02,
        conversions_total: 1,
        sales_revenue: 23,
      }),
      expect.objectContaining({ publisher_id: shopBId, impressions_total: 1, clicks_total: 0 }),
    ]);
    expect((body.data[0]!.sites as string).length).toBeGreaterThan(0);
    // Shop A sees itself, with every advertiser's figures: Acme's 6 impressions and the other's 1.
    expect((await get(shopAKey, RANGE, handlePublisherReport)).body.data).toEqual([expect.objectContaining({ publisher_id: shopAId, impressions_total: 7 })]);
  });

  it("lists a network's sub-publishers for the network's key only", async () => {
    const network = await createAccount({ kind: "network", name: `Network ${randomUUID()}` });
    const sub = await makePublisher({ networkId: network.id });
    const brand = await makeAdvertiser();
    const onNetwork = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [network.id], bidModel: "cpm", bid: 4 });
    await beacon("impression", onNetwork, sub, "n0", at(1));
    await beacon("impression", onNetwork, sub, "n1", at(2));
    const networkKey = (await createApiKey({ accountId: network.id, name: "t" })).key;

    const subs = await get(networkKey, RANGE, handleNetworkPublisherReport);
    expect(subs.body).toMatchObject({
      total: 1,
      data: [expect.objectContaining({ publisher_id: sub.id, network_id: network.id, impressions_total: 2, ad_revenue: 0.008 })],
    });
    expect((await get(networkKey, RANGE, handlePublisherReport)).body.data.map((r) => r.publisher_id).sort()).toEqual([network.id, sub.id].sort());
    // The brand sees the network its campaign targets (no traffic of its own) and the sub-publisher it reached.
    const brandView = (await get((await createApiKey({ accountId: brand.id, name: "t" })).key, RANGE, handlePublisherReport)).body.data;
    expect(brandView.map((r) => [r.publisher_id, r.impressions_total])).toEqual([
      [sub.id, 2],
      [network.id, 0],
    ]);
    for (const key of [shopAKey, advertiserKey]) {
      const refused = await get(key, RANGE, handleNetworkPublisherReport);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ error: { code: "not_found", message: "this report is for network accounts" } });
    }
  });
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
    const network = await createAccount({ kind: "network", name: `Network ${randomUUID()}` });
    const [s1, s2, shopX] = [await makePublisher({ networkId: network.id }), await makePublisher({ networkId: network.id }), await makePublisher()];
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
    await recordConversion(
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
    brandKey = (await createApiKey({ accountId: brand.id, name: "t" })).key;
    [networkId, subOne, subTwo] = [network.id, s1.id, s2.id];
  });

  const RANGE_10_11 = "start_date=2026-11-10&end_date=2026-11-11";
  const metrics = (m: { impressions: number; clicks: number; spend: number; conversions?: number; sales?: number; duplicates?: number }) => ({
    impressions_total: m.impressions,
    views_total: 0,
    clicks_total: m.clicks,
    ctr: m.clicks / m.impressions,
    ad_revenue: m.spend,
    conversions_total: m.conversions ?? 0,
    conversion_rate: (m.conversions ?? 0) / m.clicks,
    sales_revenue: m.sales ?? 0,
    roas: (m.sales ?? 0) / m.spend,
    duplicate_events: m.duplicates ?? 0,
    bot_events: 0,
    invalid_events: 0,
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
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual(Object.keys(ads.data[0]!));
    const fromSheet = ads.data.map((_, i) => Object.fromEntries(header.map((column, c) => [column, (sheet.getRow(i + 2).values as unknown[])[c + 1] ?? null])));
    expect(fromSheet).toEqual(ads.data.map((row) => ({ ...row, day: new Date(`${row.day as string}T00:00:00Z`) })));

    // The default order (by day) downloads every row too, in the JSON's order.
    const byDay = await handleAdsDetailed(
      new Request(`http://tally.test/report/advertisers/ads-detailed?${RANGE_10_11}&download=true`, { headers: { Authorization: `Bearer ${brandKey}` } }),
    );
    const dayBook = new ExcelJS.Workbook();
    await dayBook.xlsx.load(Buffer.from(await byDay.arrayBuffer()) as unknown as ArrayBuffer);
    const daySheet = dayBook.worksheets[0]!;
    const jsonByDay = (await get(brandKey, RANGE_10_11, handleAdsDetailed)).body.data;
    expect(daySheet.rowCount).toBe(1 + jsonByDay.length);
    expect(jsonByDay.map((_, i) => (daySheet.getRow(i + 2).values as unknown[])[header.indexOf("impressions_total") + 1])).toEqual(
      jsonByDay.map((r) => r.impressions_total),
    );
  });
});
