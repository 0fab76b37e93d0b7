// What a campaign and its ads may refer to: a campaign belongs to an advertiser account, runs on
// publisher or network accounts, and promotes the advertiser's own products; its ads are of a kind
// the campaign runs and promote products of the campaign's. Whose SKU a product is on each
// publisher is sku-ownership.ts's rule.
import { type Actor, isOperator } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import type { AdType, CampaignStatus, CampaignType } from "@/server/db/generated/enums";
import { AD_TYPES_OF_CAMPAIGN } from "./ad-input";
import type { Tx } from "./sku-ownership";

/** Throws bad_request unless every product is one of the advertiser's. */
export async function assertOwnProducts(tx: Tx, advertiserId: string, productRefs: string[]): Promise<void> {
  if (productRefs.length === 0) return;
  const found = await tx.product.count({ where: { id: { in: productRefs }, advertiserId } });
  if (found !== new Set(productRefs).size) throw TallyError.field("productRefs", "every product must be one of the advertiser's");
}

/** Throws bad_request about the field (TallyError.field) unless the campaign's advertiser, publishers and products are of the right kinds and owner. */
export async function assertCampaignReferences(tx: Tx, campaign: { advertiserId: string; publisherIds: string[]; productRefs: string[] }): Promise<void> {
  const advertiser = await tx.account.findUnique({ where: { id: campaign.advertiserId }, select: { kind: true } });
  if (advertiser?.kind !== "advertiser") throw new TallyError("bad_request", "campaigns belong to advertiser accounts");
  const publishers = await tx.account.count({ where: { id: { in: campaign.publisherIds }, kind: { in: ["publisher", "network"] } } });
  if (publishers !== new Set(campaign.publisherIds).size) {
    throw TallyError.field("publisherIds", "every publisher must be a publisher or network account");
  }
  await assertOwnProducts(tx, campaign.advertiserId, campaign.productRefs);
}

/** The refusal of an ad of kind `adType` in a campaign of kind `campaignType`, or null when it fits. */
export function adTypeRefusal(campaignType: CampaignType, adType: AdType): string | null {
  const allowed = AD_TYPES_OF_CAMPAIGN[campaignType];
  if (allowed.includes(adType)) return null;
  return `a ${campaignType} campaign runs ${allowed.join(" or ")} ads, not ${adType} ads`;
}

/**
 * Throws bad_request naming the field unless the ad fits its campaign: an ad kind the campaign
 * runs, and products (each the advertiser's) that are the campaign's own, the first stray SKU named.
 */
export async function assertAdFitsCampaign(
  tx: Tx,
  campaign: { id: string; advertiserId: string; type: CampaignType },
  ad: { type: AdType; productRefs: string[] },
): Promise<void> {
  const refusal = adTypeRefusal(campaign.type, ad.type);
  if (refusal) throw TallyError.field("type", refusal);
  await assertOwnProducts(tx, campaign.advertiserId, ad.productRefs);
  if (ad.productRefs.length === 0) return;
  const stray = await tx.product.findFirst({
    where: { id: { in: ad.productRefs }, campaigns: { none: { campaignId: campaign.id } } },
    select: { sku: true },
    orderBy: { sku: "asc" },
  });
  if (stray) throw TallyError.field("productRefs", `SKU ${stray.sku} is not one of the campaign's products`);
}

/**
 * The same rule from the campaign's side: throws bad_request naming the field when new settings
 * would leave one of its ads (archived ones aside, which never serve again) of a kind the campaign
 * no longer runs, or promoting a product the campaign no longer does.
 */
export async function assertAdsStillFit(tx: Tx, campaign: { id: string; type: CampaignType; productRefs: string[] }): Promise<void> {
  const ads = await tx.ad.findMany({
    where: { campaignId: campaign.id, status: { not: "archived" } },
    select: { name: true, type: true, products: { select: { productRef: true, product: { select: { sku: true } } } } },
    orderBy: { name: "asc" },
  });
  const kept = new Set(campaign.productRefs);
  for (const ad of ads) {
    if (adTypeRefusal(campaign.type, ad.type)) {
      throw TallyError.field("type", `a ${campaign.type} campaign cannot keep its ${ad.type} ad "${ad.name}"; archive the ad first`);
    }
    const dropped = ad.products.find((p) => !kept.has(p.productRef));
    if (dropped) throw TallyError.field("productRefs", `SKU ${dropped.product.sku} is promoted by the campaign's ad "${ad.name}"`);
  }
}

/** The refusal of an active campaign with nothing to serve, beside the form's status. */
export const NO_AD_YET = "add an ad first: a campaign without an ad cannot be active (save it as a draft; its first ad can start it)";

/**
 * Throws about `status` when a person would make a campaign active while it has no ad (archived
 * ads never serve again): a new campaign starts as a draft, and its first ad can start it
 * (create-ad.ts). The operator (the seed, fixtures, CLIs) builds a campaign and its ads in one go,
 * so it is left alone; so is a campaign already active (`was`), whose edit changes something else.
 * Checked after the other rules, whose refusals say more.
 */
export async function assertMayBeActive(
  tx: Tx,
  actor: Actor,
  campaign: { id: string | null; was: CampaignStatus | null; status: CampaignStatus },
): Promise<void> {
  if (campaign.status !== "active" || campaign.was === "active" || isOperator(actor)) return;
  const ads = campaign.id === null ? 0 : await tx.ad.count({ where: { campaignId: campaign.id, status: { not: "archived" } } });
  if (ads === 0) throw TallyError.field("status", NO_AD_YET);
}
