import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { toMicros } from "@/server/money";
import { type TCreateCampaignInput, ZCreateCampaignInput } from "./campaign-input";
import { assertCampaignMaySell } from "./sku-ownership";

export { type TCreateCampaignInput, ZCreateCampaignInput } from "./campaign-input";

/** Creates a campaign; refused when it would promote another advertiser's SKU on one of its publishers (sku-ownership.ts). */
export async function createCampaign(input: TCreateCampaignInput) {
  const data = ZCreateCampaignInput.parse(input);
  const id = data.id ?? newId("cmp");
  return db.$transaction(async (tx) => {
    await assertCampaignMaySell(tx, {
      id,
      advertiserId: data.advertiserId,
      status: data.status,
      publisherIds: data.publisherIds,
      productRefs: data.productRefs,
      holdsNow: false,
    });
    return tx.campaign.create({
      data: {
        id,
        advertiserId: data.advertiserId,
        name: data.name,
        type: data.type,
        status: data.status,
        startDate: data.startDate,
        endDate: data.endDate,
        bidModel: data.bidModel,
        bidMicros: toMicros(data.bid),
        dailyBudgetMicros: data.dailyBudget === undefined ? null : toMicros(data.dailyBudget),
        publishers: { create: data.publisherIds.map((publisherId) => ({ publisherId })) },
        products: { create: data.productRefs.map((productRef) => ({ productRef })) },
      },
    });
  });
}
