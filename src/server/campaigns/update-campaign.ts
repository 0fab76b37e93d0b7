// Changing a campaign of an advertiser the actor may manage: its settings (the same schema as
// creating it, and the same rules on what it refers to), or only its status (pause, resume). Its
// publishers and products are replaced as a whole, in one transaction. Either can make the
// campaign promote a SKU on a publisher where it did not before (new products, new publishers, or
// leaving ended/archived), which the SKU ownership rule checks (sku-ownership.ts).
import { type Actor, assertMayChange, mayAccess } from "@/server/accounts/actor";
import { utcDay } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { fromMicros, toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import type { CampaignStatus } from "@/server/db/generated/enums";
import { campaignState, campaignStateOf, recordCampaignChange } from "./campaign-activity";
import { type TCampaignSettings, ZCampaignSettings } from "./campaign-input";
import { assertAdsStillFit, assertCampaignReferences, assertMayBeActive } from "./campaign-references";
import { assertCampaignMaySell, releasesSkus, type Tx } from "./sku-ownership";
import { lockCampaignRow } from "./update-campaign.sql";

// One answer for a campaign that does not exist and one the actor may not see.
const noSuchCampaign = () => new TallyError("not_found", "no such campaign");

/**
 * The campaign's row, locked until the transaction ends: two writes of one campaign take turns,
 * so each compares against what the other stored. NO KEY UPDATE, the lock the row's UPDATE takes
 * anyway, so beacons writing the campaign's daily spend (a foreign key to it) never wait.
 */
export async function lockCampaign(tx: Tx, actor: Actor, id: string) {
  const [row] = await lockCampaignRow(tx, id);
  if (!row || !mayAccess(actor, row.advertiser_id)) throw noSuchCampaign();
  assertMayChange(actor, row.advertiser_id, "campaign");
  return { advertiserId: row.advertiser_id, status: row.status };
}

export async function updateCampaign({ actor, id, settings }: { actor: Actor; id: string; settings: TCampaignSettings }) {
  const data = ZCampaignSettings.parse(settings);
  return db.$transaction(async (tx) => {
    const existing = await lockCampaign(tx, actor, id);
    await assertCampaignReferences(tx, { advertiserId: existing.advertiserId, publisherIds: data.publisherIds, productRefs: data.productRefs });
    await assertAdsStillFit(tx, { id, type: data.type, productRefs: data.productRefs });
    await assertCampaignMaySell(tx, {
      id,
      advertiserId: existing.advertiserId,
      status: data.status,
      publisherIds: data.publisherIds,
      productRefs: data.productRefs,
      holdsNow: !releasesSkus(existing.status),
    });
    await assertMayBeActive(tx, actor, { id, was: existing.status, status: data.status });
    const before = await campaignState(tx, id);
    await tx.campaignPublisher.deleteMany({ where: { campaignId: id } });
    await tx.campaignProduct.deleteMany({ where: { campaignId: id } });
    const updated = await tx.campaign.update({
      where: { id },
      data: {
        name: data.name,
        type: data.type,
        status: data.status,
        startDate: new Date(`${data.startDate}T00:00:00Z`),
        endDate: data.endDate === undefined ? null : new Date(`${data.endDate}T00:00:00Z`),
        bidModel: data.bidModel,
        bidMicros: toMicros(data.bid),
        dailyBudgetMicros: data.dailyBudget === undefined ? null : toMicros(data.dailyBudget),
        publishers: { create: data.publisherIds.map((publisherId) => ({ publisherId })) },
        products: { create: data.productRefs.map((productRef) => ({ productRef })) },
      },
    });
    await recordCampaignChange(tx, actor, { id, name: data.name, advertiserId: existing.advertiserId }, before, campaignStateOf(data));
    return updated;
  });
}

/**
 * Sets the status; an ended or archived campaign that comes back claims its SKUs again, and may be
 * refused; a campaign without an ad may not be made active by a person.
 */
export async function setCampaignStatus({ actor, id, status }: { actor: Actor; id: string; status: CampaignStatus }) {
  await db.$transaction(async (tx) => {
    const existing = await lockCampaign(tx, actor, id);
    if (releasesSkus(existing.status) && !releasesSkus(status)) {
      const publishers = await tx.campaignPublisher.findMany({ where: { campaignId: id }, select: { publisherId: true } });
      const products = await tx.campaignProduct.findMany({ where: { campaignId: id }, select: { productRef: true } });
      await assertCampaignMaySell(tx, {
        id,
        advertiserId: existing.advertiserId,
        status,
        publisherIds: publishers.map((p) => p.publisherId),
        productRefs: products.map((p) => p.productRef),
        holdsNow: false,
      });
    }
    await assertMayBeActive(tx, actor, { id, was: existing.status, status });
    const before = await campaignState(tx, id);
    await tx.campaign.update({ where: { id }, data: { status } });
    if (before) await recordCampaignChange(tx, actor, { id, name: before.name, advertiserId: existing.advertiserId }, before, { ...before, status });
  });
}

/** A campaign's settings as the form edits them (money in currency units, days as YYYY-MM-DD), when the actor may manage it. */
export async function campaignSettings({ actor, id }: { actor: Actor; id: string }) {
  const c = await db.campaign.findUnique({ where: { id }, include: { publishers: true, products: true } });
  if (!c || !mayAccess(actor, c.advertiserId)) throw noSuchCampaign();
  return {
    id: c.id,
    advertiserId: c.advertiserId,
    name: c.name,
    type: c.type,
    status: c.status,
    startDate: utcDay(c.startDate),
    endDate: c.endDate ? utcDay(c.endDate) : undefined,
    bidModel: c.bidModel,
    bid: fromMicros(c.bidMicros),
    dailyBudget: c.dailyBudgetMicros === null ? undefined : fromMicros(c.dailyBudgetMicros),
    publisherIds: c.publishers.map((p) => p.publisherId),
    productRefs: c.products.map((p) => p.productRef),
  };
}
