// Changing an ad of a campaign the actor may manage: its settings (the same schema and rules as
// creating it) or only its status. Beacons carry what was served in their signed token, so an
// edit never rewrites past events.
import { type Actor, assertMayChange, mayAccess } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import type { AdStatus } from "@/server/db/generated/enums";
import { type TAdSettings, ZAdSettings } from "./ad-input";
import { adState, adStateOf, recordAdChange } from "./campaign-activity";
import { assertAdFitsCampaign } from "./campaign-references";
import type { Tx } from "./sku-ownership";
import { lockCampaignRow } from "./update-campaign.sql";

/** The ad's campaign's advertiser; one answer for an ad that does not exist and one the actor may not see. */
async function advertiserOfAd(tx: Tx, actor: Actor, id: string): Promise<string> {
  const ad = await tx.ad.findUnique({ where: { id }, select: { campaign: { select: { advertiserId: true } } } });
  if (!ad || !mayAccess(actor, ad.campaign.advertiserId)) throw new TallyError("not_found", "no such ad");
  assertMayChange(actor, ad.campaign.advertiserId, "ad");
  return ad.campaign.advertiserId;
}

/** Its kind and products must still fit its campaign (create-ad.ts), checked under the campaign's row lock. */
export async function updateAd({ actor, id, settings }: { actor: Actor; id: string; settings: TAdSettings }) {
  const data = ZAdSettings.parse(settings);
  return db.$transaction(async (tx) => {
    const advertiserId = await advertiserOfAd(tx, actor, id);
    const { campaignId } = await tx.ad.findUniqueOrThrow({ where: { id }, select: { campaignId: true } });
    const [campaign] = await lockCampaignRow(tx, campaignId);
    if (!campaign) throw new TallyError("not_found", "no such ad");
    await assertAdFitsCampaign(tx, { id: campaignId, advertiserId, type: campaign.type }, data);
    const before = await adState(tx, id);
    await tx.adProduct.deleteMany({ where: { adId: id } });
    const updated = await tx.ad.update({
      where: { id },
      data: {
        name: data.name,
        type: data.type,
        size: data.size ?? null,
        mediaUrl: data.mediaUrl ?? null,
        destinationUrl: data.destinationUrl ?? null,
        status: data.status,
        products: { create: data.productRefs.map((productRef) => ({ productRef })) },
      },
    });
    if (before) await recordAdChange(tx, actor, { id, name: data.name, advertiserId, campaignId: before.campaignId }, before.state, adStateOf(data));
    return updated;
  });
}

export async function setAdStatus({ actor, id, status }: { actor: Actor; id: string; status: AdStatus }): Promise<void> {
  await db.$transaction(async (tx) => {
    const advertiserId = await advertiserOfAd(tx, actor, id);
    const before = await adState(tx, id);
    const updated = await tx.ad.updateMany({ where: { id }, data: { status } });
    if (updated.count === 0 || !before) throw new TallyError("not_found", "no such ad");
    await recordAdChange(tx, actor, { id, name: before.state.name, advertiserId, campaignId: before.campaignId }, before.state, { ...before.state, status });
  });
}

/** The ad's settings as the form edits them, with its campaign's advertiser, when the actor may manage it. */
export async function adSettings({ actor, id }: { actor: Actor; id: string }) {
  const ad = await db.ad.findUnique({ where: { id }, include: { products: true, campaign: { select: { advertiserId: true } } } });
  if (!ad || !mayAccess(actor, ad.campaign.advertiserId)) throw new TallyError("not_found", "no such ad");
  return {
    id: ad.id,
    campaignId: ad.campaignId,
    advertiserId: ad.campaign.advertiserId,
    name: ad.name,
    type: ad.type,
    size: ad.size ?? undefined,
    mediaUrl: ad.mediaUrl ?? undefined,
    destinationUrl: ad.destinationUrl ?? undefined,
    status: ad.status,
    productRefs: ad.products.map((p) => p.productRef),
  };
}
