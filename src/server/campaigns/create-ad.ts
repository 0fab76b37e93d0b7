import { type Actor, assertMayChange, isOperator, mayAccess } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type TCreateAdInput, ZCreateAdInput } from "./ad-input";
import { adStateOf, campaignState, recordAdChange, recordCampaignChange } from "./campaign-activity";
import { assertAdFitsCampaign } from "./campaign-references";
import { lockCampaignRow } from "./update-campaign.sql";

export { type TCreateAdInput, ZCreateAdInput } from "./ad-input";

/**
 * Adds an ad to a campaign the actor may manage (the operator when no actor is given): of a kind
 * the campaign runs, promoting only the campaign's products. Only the operator (the seed, fixtures)
 * chooses the id. The campaign's row is locked, so an edit of the campaign that would strand the
 * ad (update-campaign.ts) waits and sees it; the activity log's entry is written in the same
 * transaction. With `activateCampaign`, an active ad starts its draft campaign in that transaction
 * (a campaign without an ad stays a draft: campaign-references.ts); any other campaign keeps its
 * status, so a paused or ended one is never resumed by a new ad.
 */
export async function createAd(input: TCreateAdInput & { actor: Actor }) {
  const actor = input.actor;
  const data = ZCreateAdInput.parse(input);
  return db.$transaction(async (tx) => {
    const [campaign] = await lockCampaignRow(tx, data.campaignId);
    if (!campaign || !mayAccess(actor, campaign.advertiser_id)) throw new TallyError("not_found", "no such campaign");
    assertMayChange(actor, campaign.advertiser_id, "campaign");
    await assertAdFitsCampaign(tx, { id: data.campaignId, advertiserId: campaign.advertiser_id, type: campaign.type }, data);
    const id = (isOperator(actor) ? data.id : undefined) ?? newId("ad");
    const ad = await tx.ad.create({
      data: {
        id,
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
    await recordAdChange(tx, actor, { id, name: data.name, advertiserId: campaign.advertiser_id, campaignId: data.campaignId }, null, adStateOf(data));
    if (data.activateCampaign && data.status === "active" && campaign.status === "draft") {
      const before = await campaignState(tx, data.campaignId);
      await tx.campaign.update({ where: { id: data.campaignId }, data: { status: "active" } });
      if (before) {
        const subject = { id: data.campaignId, name: before.name, advertiserId: campaign.advertiser_id };
        await recordCampaignChange(tx, actor, subject, before, { ...before, status: "active" });
      }
    }
    return ad;
  });
}
