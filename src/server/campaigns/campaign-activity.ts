// What the activity log keeps of a campaign's and an ad's changes (docs/activity.md): their
// settings as the form shows them (money in currency units, days as YYYY-MM-DD, lists sorted, so
// the same set in another order is no change), written in the change's transaction.
import type { Actor } from "@/server/accounts/actor";
import { changedFields, recordActivity } from "@/server/activity/activity-log";
import { utcDay } from "@/server/core/days";
import { fromMicros, toMicros } from "@/server/core/money";
import type { Tx } from "./sku-ownership";

export interface CampaignState {
  [field: string]: string | number | string[] | null;
  name: string;
  type: string;
  status: string;
  startDate: string;
  endDate: string | null;
  bidModel: string;
  bid: number;
  dailyBudget: number | null;
  publisherIds: string[];
  productRefs: string[];
}

export interface AdState {
  [field: string]: string | string[] | null;
  name: string;
  type: string;
  size: string | null;
  mediaUrl: string | null;
  destinationUrl: string | null;
  status: string;
  productRefs: string[];
}

const sorted = (values: string[]) => [...new Set(values)].sort();

/** A campaign's settings as stored, read in the caller's transaction (after its lock), or null. */
export async function campaignState(tx: Tx, id: string): Promise<CampaignState | null> {
  const c = await tx.campaign.findUnique({ where: { id }, include: { publishers: true, products: true } });
  if (!c) return null;
  return campaignStateOf({
    ...c,
    startDate: utcDay(c.startDate),
    endDate: c.endDate ? utcDay(c.endDate) : null,
    bid: fromMicros(c.bidMicros),
    dailyBudget: c.dailyBudgetMicros === null ? null : fromMicros(c.dailyBudgetMicros),
    publisherIds: c.publishers.map((p) => p.publisherId),
    productRefs: c.products.map((p) => p.productRef),
  });
}

/** An ad's settings as stored, with its campaign and advertiser, or null. */
export async function adState(tx: Tx, id: string): Promise<{ campaignId: string; advertiserId: string; state: AdState } | null> {
  const ad = await tx.ad.findUnique({ where: { id }, include: { products: true, campaign: { select: { advertiserId: true } } } });
  if (!ad) return null;
  return { campaignId: ad.campaignId, advertiserId: ad.campaign.advertiserId, state: adStateOf({ ...ad, productRefs: ad.products.map((p) => p.productRef) }) };
}

/** An ad's settings (stored, or as the form sent them) as the log keeps them. */
export const adStateOf = (ad: {
  name: string;
  type: string;
  size?: string | null;
  mediaUrl?: string | null;
  destinationUrl?: string | null;
  status: string;
  productRefs: string[];
}): AdState => ({
  name: ad.name,
  type: ad.type,
  size: ad.size ?? null,
  mediaUrl: ad.mediaUrl ?? null,
  destinationUrl: ad.destinationUrl ?? null,
  status: ad.status,
  productRefs: sorted(ad.productRefs),
});

/** A campaign's settings (as the form sent them) as the log keeps them. */
export const campaignStateOf = (c: {
  name: string;
  type: string;
  status: string;
  startDate: string;
  endDate?: string | null;
  bidModel: string;
  bid: number;
  dailyBudget?: number | null;
  publisherIds: string[];
  productRefs: string[];
}): CampaignState => ({
  name: c.name,
  type: c.type,
  status: c.status,
  startDate: c.startDate,
  endDate: c.endDate ?? null,
  bidModel: c.bidModel,
  // As stored (micro-units), so a bid of more decimals than money keeps reads as what was kept.
  bid: fromMicros(toMicros(c.bid)),
  dailyBudget: c.dailyBudget === undefined || c.dailyBudget === null ? null : fromMicros(toMicros(c.dailyBudget)),
  publisherIds: sorted(c.publisherIds),
  productRefs: sorted(c.productRefs),
});

interface Subject {
  id: string;
  name: string;
  advertiserId: string;
}

/** Records a campaign made (`before` null) or changed (only what differs; nothing when nothing does). */
export async function recordCampaignChange(tx: Tx, actor: Actor, campaign: Subject, before: CampaignState | null, after: CampaignState): Promise<void> {
  const change = before === null ? { before: null, after } : changedFields(before, after);
  if (!change) return;
  const action = before === null ? "campaign.created" : Object.keys(change.after).join() === "status" ? "campaign.status.set" : "campaign.updated";
  await recordActivity(tx, actor, {
    action,
    subject: `campaign ${campaign.name} (${campaign.id})`,
    accountId: campaign.advertiserId,
    campaignId: campaign.id,
    ...change,
  });
}

/** Records an ad made (`before` null) or changed (only what differs; nothing when nothing does). */
export async function recordAdChange(tx: Tx, actor: Actor, ad: Subject & { campaignId: string }, before: AdState | null, after: AdState): Promise<void> {
  const change = before === null ? { before: null, after } : changedFields(before, after);
  if (!change) return;
  const action = before === null ? "ad.created" : Object.keys(change.after).join() === "status" ? "ad.status.set" : "ad.updated";
  await recordActivity(tx, actor, {
    action,
    subject: `ad ${ad.name} (${ad.id})`,
    accountId: ad.advertiserId,
    campaignId: ad.campaignId,
    ...change,
  });
}
