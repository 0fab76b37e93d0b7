import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { ZCreateCampaignInput, type TCreateCampaignInput } from "./campaign-input";
import { toMicros } from "@/server/money";

export { ZCreateCampaignInput, type TCreateCampaignInput } from "./campaign-input";

export async function createCampaign(input: TCreateCampaignInput) {
  const data = ZCreateCampaignInput.parse(input);
  return db.campaign.create({
    data: {
      id: data.id ?? newId("cmp"),
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
}
