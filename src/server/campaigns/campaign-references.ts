// What a campaign and its ads may refer to: a campaign belongs to an advertiser account, runs on
// publisher or network accounts, and promotes the advertiser's own products, as do its ads. Whose
// SKU a product is on each publisher is sku-ownership.ts's rule.
import { TallyError } from "@/server/core/errors";
import type { Tx } from "./sku-ownership";

/** Throws bad_request unless every product is one of the advertiser's. */
export async function assertOwnProducts(tx: Tx, advertiserId: string, productRefs: string[]): Promise<void> {
  if (productRefs.length === 0) return;
  const found = await tx.product.count({ where: { id: { in: productRefs }, advertiserId } });
  if (found !== new Set(productRefs).size) throw new TallyError("bad_request", "productRefs: every product must be one of the advertiser's");
}

/** Throws bad_request naming the field unless the campaign's advertiser, publishers and products are of the right kinds and owner. */
export async function assertCampaignReferences(tx: Tx, campaign: { advertiserId: string; publisherIds: string[]; productRefs: string[] }): Promise<void> {
  const advertiser = await tx.account.findUnique({ where: { id: campaign.advertiserId }, select: { kind: true } });
  if (advertiser?.kind !== "advertiser") throw new TallyError("bad_request", "campaigns belong to advertiser accounts");
  const publishers = await tx.account.count({ where: { id: { in: campaign.publisherIds }, kind: { in: ["publisher", "network"] } } });
  if (publishers !== new Set(campaign.publisherIds).size) {
    throw new TallyError("bad_request", "publisherIds: every publisher must be a publisher or network account");
  }
  await assertOwnProducts(tx, campaign.advertiserId, campaign.productRefs);
}
