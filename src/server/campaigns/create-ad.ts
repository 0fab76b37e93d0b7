import { type Actor, assertMayChange, isOperator, mayAccess } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type TCreateAdInput, ZCreateAdInput } from "./ad-input";
import { assertOwnProducts } from "./campaign-references";

export { type TCreateAdInput, ZCreateAdInput } from "./ad-input";

/**
 * Adds an ad to a campaign the actor may manage (the operator when no actor is given); its
 * products must be the campaign's advertiser's. Only the operator (the seed, fixtures) chooses the id.
 */
export async function createAd(input: TCreateAdInput & { actor: Actor }) {
  const actor = input.actor;
  const data = ZCreateAdInput.parse(input);
  const campaign = await db.campaign.findUnique({ where: { id: data.campaignId }, select: { advertiserId: true } });
  if (!campaign || !mayAccess(actor, campaign.advertiserId)) throw new TallyError("not_found", "no such campaign");
  assertMayChange(actor, campaign.advertiserId, "campaign");
  await assertOwnProducts(db, campaign.advertiserId, data.productRefs);
  return db.ad.create({
    data: {
      id: (isOperator(actor) ? data.id : undefined) ?? newId("ad"),
      campaignId: data.campaignId,
      name: data.name,
      type: data.type,
      size: data.size,
      mediaUrl: data.mediaUrl,
      destinationUrl: data.destinationUrl,
      status: data.status,
      products: { create: data.productRefs.map((productRef) => ({ productRef })) },
    },
  });
}
