// Test data for the report route tests beside it (*.int.test.ts): beacons and orders stored
// through the real intake and attribution, and the routes asked over a Fetch Request, as a
// client would. Each test file has its own database, so each seeds its own.
import { createHash, randomUUID } from "node:crypto";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { setCatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { handleCampaignListing } from "@/server/http/report-routes";
import { sessionHashOf } from "@/server/pipeline/accept/beacons/beacon-token";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import type { EventKind } from "@/server/store/settle-types";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { checkAnswer } from "./api/contract";
import { type ReportHandler, reportPathOf } from "./api/report-paths";
import { CHROME } from "./beacon-log";

const DAY = new Date("2026-11-10T12:00:00Z");
export const at = (minutes: number) => new Date(DAY.getTime() + minutes * 60_000);

export type Fixture = Awaited<ReturnType<typeof makeCampaignWithAd>>;
export async function beacon(kind: EventKind, { campaign, ad }: Fixture, publisher: { id: string; sites: { name: string }[] }, session: string, when: Date) {
  await recordAndSettle({
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
      searchTerm: null,
      category: null,
      issuedAt: Math.floor(when.getTime() / 1000),
      sessionHash: sessionHashOf(session),
    },
    body: { session_id: session },
    userAgent: CHROME,
    now: when,
  });
}

/** Asks a report route as a client would; its answer is checked against the API document. */
export const get = async (key: string, query: string, handler: ReportHandler = handleCampaignListing) => {
  const request = new Request(`http://tally.test${reportPathOf(handler)}?${query}`, { headers: { Authorization: `Bearer ${key}` } });
  const response = await handler(request);
  await checkAnswer(request, response);
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown>[]; page: number; per_page: number; total: number } };
};
export const RANGE = "start_date=2026-11-01&end_date=2026-11-30";

/**
 * How seedAcme's one order is credited, as every Acme row holding it reports it (alongside its
 * clicks, 2): both lines (2 × 9.00 and 1 × 5.00, 3 units) came from a click, so the order is
 * click-through and 1 of the 2 clicks converted; no halo line; the shopper's first purchase of the brand.
 */
export const ACME_ORDER_CREDIT = {
  conversions_click: 1,
  conversions_view: 0,
  sales_revenue_click: 23,
  sales_revenue_view: 0,
  units_sold: 3,
  converted_clicks: 1,
  click_conversion_rate: 0.5,
  halo_conversions: 0,
  halo_sales_revenue: 0,
  ntb_conversions: 1,
  ntb_sales_revenue: 23,
  ntb_rate: 1,
};

// Acme runs a CPC campaign (bid 0.50) on shops A and B and a CPM one (bid 10) on A. On 10 Nov:
// CPC: 4 impressions and 2 clicks on A, 1 impression on B; one order on A credits 2 lines
// (2 × 9.00 and 1 × 5.00) to a click. CPM: 2 impressions on A. Another advertiser has a campaign on A.
export async function seedAcme() {
  // Shop A's checkout sends orders unsigned, and it credits orders without proof.
  const [shopA, shopB] = [await makePublisher({ creditUnverified: true }), await makePublisher()];
  const acme = await makeAdvertiser();
  const other = await makeAdvertiser();
  const cpc = await makeCampaignWithAd({
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
  const cpm = await makeCampaignWithAd({ advertiserId: acme.id, publisherIds: [shopA.id], type: "display", bidModel: "cpm", bid: 10 });
  const othersCampaign = await makeCampaignWithAd({ advertiserId: other.id, publisherIds: [shopA.id], bidModel: "cpm", bid: 3 });
  for (let i = 0; i < 4; i += 1) await beacon("impression", cpc, shopA, `s${i}`, at(i));
  await beacon("click", cpc, shopA, "s0", at(5));
  await beacon("click", cpc, shopA, "s1", at(6));
  await beacon("impression", cpc, shopB, "b0", at(7));
  await beacon("impression", cpm, shopA, "s0", at(8));
  await beacon("impression", cpm, shopA, "s1", at(9));
  await beacon("impression", othersCampaign, shopA, "s0", at(10));
  await recordAndSettleConversion(
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
  return {
    advertiserKey: (await createApiKey({ actor: OPERATOR, accountId: acme.id, name: "t" })).key,
    otherAdvertiserKey: (await createApiKey({ actor: OPERATOR, accountId: other.id, name: "t" })).key,
    publisherKey: (await createApiKey({ actor: OPERATOR, accountId: shopB.id, name: "t" })).key,
    shopAKey: (await createApiKey({ actor: OPERATOR, accountId: shopA.id, name: "t" })).key,
    acmeId: acme.id,
    otherId: other.id,
    shopAId: shopA.id,
    shopBId: shopB.id,
    shopA,
    shopB,
    cpc,
    cpm,
    othersCampaign,
  };
}

/**
 * A halo line for seedAcme's data: shop A's catalogue gives acme a SKU (a descaler) that none of
 * its campaigns sells, and the shopper who clicked the CPC ad on A (s1) buys two of it at 6.00
 * forty minutes in, with one of the CPC campaign's own SKUs (1 × 9.00) when `withOwnSku`. The
 * descaler line is credited to that click as halo; the campaign's SKU, if bought, as usual.
 */
export async function seedHaloOrder(fixture: Awaited<ReturnType<typeof seedAcme>>, { withOwnSku }: { withOwnSku: boolean }) {
  const sku = `D-${randomUUID()}`;
  await setCatalogueEntry({ actor: OPERATOR, publisherId: fixture.shopAId, sku, advertiserId: fixture.acmeId });
  const ownSku = fixture.cpc.products[0]!.sku;
  await recordAndSettleConversion(
    {
      publisher_id: fixture.shopAId,
      user_id: "u1",
      session_id: "s1",
      order_id: `o-halo-${randomUUID()}`,
      created_at: at(40).toISOString(),
      channel: "app",
      email_hashed: createHash("sha256").update("u1@example.com").digest("hex"),
      items: [...(withOwnSku ? [{ sku: ownSku, quantity: 1, price: 9, promotional_price: 9 }] : []), { sku, quantity: 2, price: 6, promotional_price: 6 }],
    },
    at(41),
  );
  await attributePendingConversions({ settleMs: 0 });
  return { sku, ownSku, haloValueMicros: 12_000_000 };
}

/**
 * A repeat purchase for seedAcme's data: the shopper of its order (u0, s0) buys one kettle again
 * at 9.00 fifty minutes in. The line is credited to the same click, as a line of the campaign's
 * own SKU, but is not new to acme's brand: the shopper bought it at shop A twenty minutes before.
 */
export async function seedRepeatOrder(fixture: Awaited<ReturnType<typeof seedAcme>>) {
  await recordAndSettleConversion(
    {
      publisher_id: fixture.shopAId,
      user_id: "u0",
      session_id: "s0",
      order_id: `o-repeat-${randomUUID()}`,
      created_at: at(50).toISOString(),
      channel: "app",
      email_hashed: createHash("sha256").update("u0@example.com").digest("hex"),
      items: [{ sku: fixture.cpc.products[0]!.sku, quantity: 1, price: 9, promotional_price: 9 }],
    },
    at(51),
  );
  await attributePendingConversions({ settleMs: 0 });
  return { valueMicros: 9_000_000 };
}

/** A network with one sub-publisher that showed one CPM impression of a brand's campaign, for the network's report routes. */
export async function seedNetworkImpression(): Promise<{ networkId: string }> {
  const network = await createAccount({ actor: OPERATOR, kind: "network", name: `Network ${randomUUID()}` });
  const sub = await makePublisher({ networkId: network.id });
  const brand = await makeAdvertiser();
  const onNetwork = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [network.id], bidModel: "cpm", bid: 4 });
  await beacon("impression", onNetwork, sub, "n0", at(1));
  return { networkId: network.id };
}
