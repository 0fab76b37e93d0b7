import { type Actor, assertMayChange, isOperator } from "@/server/accounts/actor";
import { toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { campaignStateOf, recordCampaignChange } from "./campaign-activity";
import { type TCreateCampaignInput, ZCreateCampaignInput } from "./campaign-input";
import { assertCampaignReferences, assertMayBeActive } from "./campaign-references";
import { assertCampaignMaySell } from "./sku-ownership";

export { type TCreateCampaignInput, ZCreateCampaignInput } from "./campaign-input";

/**
 * Creates a campaign for an advertiser the actor may manage (the operator when no actor is given).
 * Refused unless the advertiser is an advertiser account, its publishers publisher or network
 * accounts and its products the advertiser's own (campaign-references.ts), and when it would
 * promote another advertiser's SKU on one of its publishers (sku-ownership.ts), and when a person
 * asks for it active: it has no ad yet (campaign-references.ts). Only the operator (the seed,
 * fixtures) chooses the id.
 */
export async function createCampaign(input: TCreateCampaignInput & { actor: Actor }) {
  const actor = input.actor;
  const data = ZCreateCampaignInput.parse(input);
  assertMayChange(actor, data.advertiserId, "account");
  const id = (isOperator(actor) ? data.id : undefined) ?? newId("cmp");
  return db.$transaction(async (tx) => {
    await assertCampaignReferences(tx, data);
    await assertCampaignMaySell(tx, {
      id,
      advertiserId: data.advertiserId,
      status: data.status,
      publisherIds: data.publisherIds,
      productRefs: data.productRefs,
      holdsNow: false,
    });
    await assertMayBeActive(tx, actor, { id: null, was: null, status: data.status });
    const created = await tx.campaign.create({
      data: {
        id,
        advertiserId: data.advertiserId,
        name: data.name,
        type: data.type,
        status: data.status,
        startDate: new Date(`${data.startDate}T00:00:00Z`),
        endDate: data.endDate === undefined ? undefined : new Date(`${data.endDate}T00:00:00Z`),
        bidModel: data.bidModel,
        bidMicros: toMicros(data.bid),
        dailyBudgetMicros: data.dailyBudget === undefined ? null : toMicros(data.dailyBudget),
        publishers: { create: data.publisherIds.map((publisherId) => ({ publisherId })) },
        products: { create: data.productRefs.map((productRef) => ({ productRef })) },
      },
    });
    await recordCampaignChange(tx, actor, { id, name: data.name, advertiserId: data.advertiserId }, null, campaignStateOf(data));
    return created;
  });
}
