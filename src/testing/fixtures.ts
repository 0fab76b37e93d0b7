// Test fixtures built through the same domain functions as the seed and the dashboard.
import { randomBytes } from "node:crypto";
import { OPERATOR } from "@/server/accounts/actor";
import { createAccount } from "@/server/accounts/create-account";
import { createAd } from "@/server/campaigns/create-ad";
import { createCampaign } from "@/server/campaigns/create-campaign";
import { createProduct } from "@/server/campaigns/create-product";
import { daysFromToday, utcDay } from "@/server/core/days";
import { updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";

const unique = () => randomBytes(4).toString("hex");
export const today = () => utcDay();
export { daysFromToday };

/**
 * `creditUnverified`: the publisher credits orders sent without proof (off by default, as for every
 * publisher), for tests whose orders stand for a checkout that sends them unsigned.
 */
export async function makePublisher(options: { sites?: { name: string; domain?: string }[]; networkId?: string; creditUnverified?: boolean } = {}) {
  const publisher = await createAccount({
    actor: OPERATOR,
    kind: "publisher",
    name: `Shop ${unique()}`,
    networkId: options.networkId,
    sites: options.sites ?? [{ name: `shop-${unique()}.example`, domain: `shop-${unique()}.example` }],
  });
  if (options.creditUnverified) {
    await updateConversionTrust({ actor: OPERATOR, publisherId: publisher.id, creditUnverified: true, maxOrderTotal: null, maxLineQuantity: null });
  }
  return publisher;
}

export async function makeAdvertiser(options: { wallet?: number; dailyBudget?: number } = {}) {
  return createAccount({
    actor: OPERATOR,
    kind: "advertiser",
    name: `Brand ${unique()}`,
    sellerId: `seller-${unique()}`,
    walletBalance: options.wallet ?? 1000,
    dailyBudget: options.dailyBudget,
  });
}

interface CampaignOptions {
  advertiserId: string;
  publisherIds: string[];
  type?: "product" | "display" | "video";
  bidModel?: "cpm" | "cpc";
  bid?: number;
  dailyBudget?: number;
  status?: "active" | "paused" | "draft";
  startDate?: string;
  endDate?: string;
  products?: { sku: string; name: string; category?: string; productId?: string }[];
  /** Products of the advertiser that the campaign promotes too (a SKU is one product per advertiser). */
  sharedProducts?: Awaited<ReturnType<typeof createProduct>>[];
  ad?: { type?: "product" | "banner" | "video"; size?: string; mediaUrl?: string };
}

/** A campaign with its products and one ad. */
export async function makeCampaignWithAd(options: CampaignOptions) {
  const products = [...(options.sharedProducts ?? [])];
  for (const product of options.products ?? []) {
    products.push(await createProduct({ actor: OPERATOR, advertiserId: options.advertiserId, ...product }));
  }
  const type = options.type ?? "display";
  const campaign = await createCampaign({
    actor: OPERATOR,
    advertiserId: options.advertiserId,
    name: `Campaign ${unique()}`,
    type,
    status: options.status ?? "active",
    startDate: options.startDate ?? daysFromToday(-1),
    endDate: options.endDate ?? daysFromToday(30),
    bidModel: options.bidModel ?? "cpm",
    bid: options.bid ?? 5,
    dailyBudget: options.dailyBudget,
    publisherIds: options.publisherIds,
    productRefs: products.map((p) => p.id),
  });
  const adType = options.ad?.type ?? (type === "product" ? "product" : type === "video" ? "video" : "banner");
  const ad = await createAd({
    actor: OPERATOR,
    campaignId: campaign.id,
    name: `Ad ${unique()}`,
    type: adType,
    size: adType === "product" ? undefined : (options.ad?.size ?? "300x250"),
    mediaUrl: adType === "product" ? undefined : (options.ad?.mediaUrl ?? "/demo/media/banner-300x250.svg"),
    destinationUrl: "https://shop.example/landing",
  });
  return { campaign, ad, products };
}

/** A publisher, an advertiser and its product campaign (CPC 0.20) of one SKU on that publisher, with one ad; the product "Beans" unless named. */
export async function makeProductCampaign(options: { wallet?: number; product?: { name: string; category?: string } } = {}) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: options.wallet });
  const sku = `${options.product ? "SKU" : "BEANS"}-${unique()}`;
  const made = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.2,
    products: [{ sku, ...(options.product ?? { name: "Beans" }) }],
  });
  return { publisher, advertiser, sku, ...made };
}
