// Changing an ad: its settings (the same schema as creating it) or only its status. Beacons carry
// what was served in their signed token, so an edit never rewrites past events.
import { db } from "@/server/db/client";
import type { AdStatus } from "@/server/db/generated/enums";
import { TallyError } from "@/server/errors";
import { type TAdSettings, ZAdSettings } from "./ad-input";

export async function updateAd(id: string, input: TAdSettings) {
  const data = ZAdSettings.parse(input);
  return db.$transaction(async (tx) => {
    if (!(await tx.ad.findUnique({ where: { id }, select: { id: true } }))) throw new TallyError("not_found", `no ad ${id}`);
    await tx.adProduct.deleteMany({ where: { adId: id } });
    return tx.ad.update({
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
  });
}

export async function setAdStatus(id: string, status: AdStatus) {
  const updated = await db.ad.updateMany({ where: { id }, data: { status } });
  if (updated.count === 0) throw new TallyError("not_found", `no ad ${id}`);
}

/** The ad's settings as the form edits them, with its campaign's advertiser. */
export async function adSettings(id: string) {
  const ad = await db.ad.findUnique({ where: { id }, include: { products: true, campaign: { select: { advertiserId: true } } } });
  if (!ad) return null;
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
