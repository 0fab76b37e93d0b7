import { createHash, randomUUID } from "node:crypto";
import ExcelJS from "exceljs";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { attributePendingConversions } from "@/server/attribution/attribute-pending";
import { recordConversion } from "@/server/conversions/record-conversion";
import { handleAdResults, handleAdvertiserReport, handleCampaignDetail, handleCampaignListing, handleNetworkPublisherReport, handlePublisherReport } from "@/server/http/report-routes";
import type { EventKind } from "@/server/ingest/beacon-token";
import { recordBeacon } from "@/server/ingest/record-beacon";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";
const DAY = new Date("2026-11-10T12:00:00Z");
const at = (minutes: number) => new Date(DAY.getTime() + minutes * 60_000);

type Fixture = Awaited<ReturnType<typeof makeCampaignWithAd>>;
async function beacon(kind: EventKind, { campaign, ad }: Fixture, publisher: { id: string; sites: { name: string }[] }, session: string, when: Date) {
  await recordBeacon({
    claims: { kind, requestId: randomUUID(), adId: ad.id, campaignId: campaign.id, advertiserId: campaign.advertiserId, publisherId: publisher.id, site: publisher.sites[0]!.name, placementName: "p", context: "search", adType: ad.type, adSize: ad.size, issuedAt: Math.floor(when.getTime() / 1000) },
    body: { session_id: session }, userAgent: CHROME, now: when,
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
  cpc = await makeCampaignWithAd({ advertiserId: acme.id, publisherIds: [shopA.id, shopB.id], type: "product", bidModel: "cpc", bid: 0.5, products: [{ sku: `K-${randomUUID()}`, name: "Kettle" }, { sku: `M-${randomUUID()}`, name: "Mug" }] });
  cpm = await makeCampaignWithAd({ advertiserId: acme.id, publisherIds: [shopA.id], type: "display", bidModel: "cpm", bid: 10 });
  othersCampaign = await makeCampaignWithAd({ advertiserId: other.id, publisherIds: [shopA.id], bidModel: "cpm", bid: 3 });
  for (let i = 0; i < 4; i += 1) await beacon("impression", cpc, shopA, `s${i}`, at(i));
  await beacon("click", cpc, shopA, "s0", at(5));
  await beacon("click", cpc, shopA, "s1", at(6));
  await beacon("impression", cpc, shopB, "b0", at(7));
  await beacon("impression", cpm, shopA, "s0", at(8));
  await beacon("impression", cpm, shopA, "s1", at(9));
  await beacon("impression", othersCampaign, shopA, "s0", at(10));
  await recordConversion({
    publisher_id: shopA.id, user_id: "u0", session_id: "s0", order_id: "o-1", created_at: at(30).toISOString(), channel: "app",
    email_hashed: createHash("sha256").update("u0@example.com").digest("hex"),
    items: [{ sku: cpc.products[0]!.sku, quantity: 2, price: 10, promotional_price: 9 }, { sku: cpc.products[1]!.sku, quantity: 1, price: 5, promotional_price: 5 }],
  });
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
        campaign_id: cpc.campaign.id, name: cpc.campaign.name, campaign_type: "product", campaign_status: "active", advertiser_id: cpc.campaign.advertiserId,
        start_date: expect.any(String), end_date: expect.any(String),
        impressions_total: 5, views_total: 0, clicks_total: 2, ctr: 0.4, ad_revenue: 1, conversions_total: 1, conversion_rate: 0.5,
        sales_revenue: 23, roas: 23, duplicate_events: 0, bot_events: 0,
      },
      expect.objectContaining({ campaign_id: cpm.campaign.id, impressions_total: 2, clicks_total: 0, ctr: 0, ad_revenue: 0.02, conversions_total: 0, conversion_rate: 0, sales_revenue: 0, roas: 0 }),
    ]);
  });

  it("sorts by a listed column, pages, and filters by campaign_id", async () => {
    expect((await get(advertiserKey, `${RANGE}&order_by=impressions_total&order=asc`)).body.data.map((r) => r.campaign_id)).toEqual([cpm.campaign.id, cpc.campaign.id]);
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
    expect(shopB.body.data).toEqual([expect.objectContaining({ campaign_id: cpc.campaign.id, impressions_total: 1, clicks_total: 0, ad_revenue: 0, conversions_total: 0, sales_revenue: 0 })]);
  });

  it("answers 400 naming a bad parameter, and 401 without a key", async () => {
    const bad = await get(advertiserKey, "order_by=spend");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: "bad_request", message: "order_by must be one of impressions_total, clicks_total, ad_revenue, conversions_total, sales_revenue, ctr, name, start_date, not 'spend'" } });
    expect((await get("tly_nope", "")).status).toBe(401);
  });

  it("downloads every matching row as XLSX: the JSON's rows and columns, numbers as numbers, dates as dates", async () => {
    const response = await handleCampaignListing(new Request(`http://tally.test/campaign/v2?${RANGE}&per_page=1&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }));
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

describe("GET /ad/results/v2", () => {
  it("lists the advertiser's ads with their bids, SKUs and totals", async () => {
    const { status, body } = await get(advertiserKey, RANGE, handleAdResults);
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, per_page: 50, total: 2 });
    expect(body.data).toEqual([
      {
        ad_id: cpc.ad.id, name: cpc.ad.name, campaign_id: cpc.campaign.id, advertiser_id: cpc.campaign.advertiserId, ad_type: "product", ad_size: null,
        ad_status: "active", ad_media_url: null, cpm: null, cpc: 0.5, product_sku: cpc.products.map((p) => p.sku).sort().join(","),
        impressions_total: 5, views_total: 0, clicks_total: 2, ctr: 0.4, ad_revenue: 1, conversions_total: 1, conversion_rate: 0.5,
        sales_revenue: 23, roas: 23, duplicate_events: 0, bot_events: 0,
      },
      expect.objectContaining({ ad_id: cpm.ad.id, ad_type: "banner", ad_size: "300x250", cpm: 10, cpc: null, product_sku: "", impressions_total: 2, ad_revenue: 0.02 }),
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
    const response = await handleAdResults(new Request(`http://tally.test/ad/results/v2?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }));
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
  const zeros = { impressions_total: 0, views_total: 0, clicks_total: 0, ctr: 0, ad_revenue: 0, conversions_total: 0, conversion_rate: 0, sales_revenue: 0, roas: 0, duplicate_events: 0, bot_events: 0 };

  it("answers the campaign's totals, a row for every day of the range, and its ads", async () => {
    const response = await detail(advertiserKey, cpc.campaign.id, "start_date=2026-11-09&end_date=2026-11-11");
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Record<string, unknown> & { daily: unknown[]; ads: { ad_id: string }[] } };
    expect(data).toMatchObject({ campaign_id: cpc.campaign.id, impressions_total: 5, clicks_total: 2, ad_revenue: 1, conversions_total: 1, sales_revenue: 23 });
    expect(data.daily).toEqual([
      { day: "2026-11-09", ...zeros },
      { day: "2026-11-10", impressions_total: 5, views_total: 0, clicks_total: 2, ctr: 0.4, ad_revenue: 1, conversions_total: 1, conversion_rate: 0.5, sales_revenue: 23, roas: 23, duplicate_events: 0, bot_events: 0 },
      { day: "2026-11-11", ...zeros },
    ]);
    expect(data.ads.map((ad) => ad.ad_id)).toEqual([cpc.ad.id]);
  });

  it("is 404 for another account's campaign and unknown ids, and scoped for a publisher", async () => {
    for (const [key, id] of [[otherAdvertiserKey, cpc.campaign.id], [advertiserKey, "cmp_nothing"], [publisherKey, cpm.campaign.id]] as const) {
      const response = await detail(key, id, RANGE);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: `no campaign ${id}` } });
    }
    const malformed = await handleCampaignDetail(new Request("http://tally.test/campaign/%E0%A4%A?start_date=2026-11-01", { headers: { Authorization: `Bearer ${advertiserKey}` } }));
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
        advertiser: expect.stringMatching(/^Brand /), advertiser_id: acmeId, seller_id: expect.stringMatching(/^seller-/),
        // 1,000 less 2 clicks at 0.50 and 2 impressions at CPM 10.
        wallet_balance: 998.98, daily_budget: null, currency: "USD",
        impressions_total: 6, views_total: 0, clicks_total: 2, ctr: 2 / 6, ad_revenue: 1.02, conversions_total: 1, conversion_rate: 0.5,
        sales_revenue: 23, roas: 23 / 1.02, duplicate_events: 0, bot_events: 0,
      },
      expect.objectContaining({ advertiser_id: otherId, impressions_total: 1, ad_revenue: 0.003, wallet_balance: 999.997 }),
    ]);
    // Shop B: only Acme's one impression there.
    expect((await get(publisherKey, RANGE, handleAdvertiserReport)).body.data).toEqual([expect.objectContaining({ advertiser_id: acmeId, impressions_total: 1, ad_revenue: 0 })]);
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
      expect.objectContaining({ publisher_id: shopAId, network_id: null, impressions_total: 6, clicks_total: 2, ad_revenue: 1.02, conversions_total: 1, sales_revenue: 23 }),
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
    expect(subs.body).toMatchObject({ total: 1, data: [expect.objectContaining({ publisher_id: sub.id, network_id: network.id, impressions_total: 2, ad_revenue: 0.008 })] });
    expect((await get(networkKey, RANGE, handlePublisherReport)).body.data.map((r) => r.publisher_id).sort()).toEqual([network.id, sub.id].sort());
    // The brand sees the network its campaign targets (no traffic of its own) and the sub-publisher it reached.
    const brandView = (await get((await createApiKey({ accountId: brand.id, name: "t" })).key, RANGE, handlePublisherReport)).body.data;
    expect(brandView.map((r) => [r.publisher_id, r.impressions_total])).toEqual([[sub.id, 2], [network.id, 0]]);
    for (const key of [shopAKey, advertiserKey]) {
      const refused = await get(key, RANGE, handleNetworkPublisherReport);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ error: { code: "not_found", message: "this report is for network accounts" } });
    }
  });
});

