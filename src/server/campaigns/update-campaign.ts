// Changing a campaign: its settings (the same schema as creating it), or only its status (pause,
// resume). Its publishers and products are replaced as a whole, in one transaction.
import { db } from "@/server/db/client";
import type { CampaignStatus } from "@/server/db/generated/enums";
import { TallyError } from "@/server/errors";
import { fromMicros, toMicros } from "@/server/money";
import { ZCampaignSettings, type TCampaignSettings } from "./campaign-input";

export async function updateCampaign(id: string, input: TCampaignSettings) {
  const data = ZCampaignSettings.parse(input);
  return db.$transaction(async (tx) => {
    const existing = await tx.campaign.findUnique({ where: { id }, select: { id: true } });
    if (!existing) throw new TallyError("not_found", `no campaign ${id}`);
    await tx.campaignPublisher.deleteMany({ where: { campaignId: id } });
    await tx.campaignProduct.deleteMany({ where: { campaignId: id } });
    return tx.campaign.update({
      where: { id },
      data: {
        name: data.name, type: data.type, status: data.status, startDate: data.startDate, endDate: data.endDate ?? null, bidModel: data.bidModel,
        bidMicros: toMicros(data.bid), dailyBudgetMicros: data.dailyBudget === undefined ? null : toMicros(data.dailyBudget),
        publishers: { create: data.publisherIds.map((publisherId) => ({ publisherId })) },
        products: { create: data.productRefs.map((productRef) => ({ productRef })) },
      },
    });
  });
}

export async function setCampaignStatus(id: string, status: CampaignStatus) {
  const updated = await db.campaign.updateMany({ where: { id }, data: { status } });
  if (updated.count === 0) throw new TallyError("not_found", `no campaign ${id}`);
}

/** A campaign's settings as the form edits them (money in currency units, days as YYYY-MM-DD). */
export async function campaignSettings(id: string) {
  const c = await db.campaign.findUnique({ where: { id }, include: { publishers: true, products: true } });
  if (!c) return null;
  return {
    id: c.id, advertiserId: c.advertiserId, name: c.name, type: c.type, status: c.status, startDate: c.startDate.toISOString().slice(0, 10),
    endDate: c.endDate ? c.endDate.toISOString().slice(0, 10) : undefined, bidModel: c.bidModel, bid: fromMicros(c.bidMicros),
    dailyBudget: c.dailyBudgetMicros === null ? undefined : fromMicros(c.dailyBudgetMicros),
    publisherIds: c.publishers.map((p) => p.publisherId), productRefs: c.products.map((p) => p.productRef),
  };
}
