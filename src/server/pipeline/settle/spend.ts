// What each settled event costs: counted impressions of a CPM campaign bid / 1000, counted clicks
// of a CPC campaign its bid, views and everything not counted nothing. An event is charged only
// while the wallet is above zero and neither daily budget is reached, so a budget is overspent by
// at most one event; events past it stay counted (they were shown) but cost nothing.
// Daily budgets are the advertiser's local days: an event's spend counts toward the date it
// happened on in the advertiser's zone (accounts.time_zone), so both budgets reset at the
// advertiser's local midnight, however long that day is (23 or 25 hours across a DST change).
import type pg from "pg";
import { addDays, utcDay } from "@/server/core/days";
import type { EventStatus } from "@/server/core/event-status";
import { localDay, localRangeSpan } from "@/server/core/time-zones";
import type { LoggedBeacon, PricedEvents } from "@/server/store/settle-types";
import { type BillingRow, lockedBilling } from "./spend.sql";

const isBillable = (beacon: LoggedBeacon, status: EventStatus | undefined) => status === "counted" && beacon.claims.kind !== "view";

/**
 * localDay for the many moments of a stretch: a date in the tz database costs tens of
 * microseconds, so each zone's current local day is worked out once, with the UTC moments it
 * spans, and reused while the moments fall inside that span (exactly that day, however long).
 */
function localDays(): (moment: Date, zone: string) => string {
  const spans = new Map<string, { day: string; from: number; to: number }>();
  return (moment, zone) => {
    const at = moment.getTime();
    const known = spans.get(zone);
    if (known && at >= known.from && at < known.to) return known.day;
    const day = localDay(moment, zone);
    const { from, to } = localRangeSpan({ startDate: day, endDate: day }, zone);
    spans.set(zone, { day, from: from.getTime(), to: to.getTime() });
    return day;
  };
}

/** The price of each event of `batch`, from its campaign's billing row; in order, so earlier events use the budget first. */
export function priceEvents(batch: readonly LoggedBeacon[], statuses: readonly EventStatus[], campaigns: readonly BillingRow[]): PricedEvents {
  const spend = batch.map(() => 0n);
  const days = batch.map(() => "");
  const dayOf = localDays();
  const billable = batch.map((b, i) => ({ b, i })).filter(({ b, i }) => isBillable(b, statuses[i]));
  const byCampaign = new Map(campaigns.map((c) => [c.id, c]));
  const spentSoFar = new Map<string, bigint>();
  for (const c of campaigns) {
    for (const [day, amount] of Object.entries(c.campaign_spent)) spentSoFar.set(`campaign:${c.id}:${day}`, BigInt(amount));
    for (const [day, amount] of Object.entries(c.advertiser_spent)) spentSoFar.set(`advertiser:${c.advertiser_id}:${day}`, BigInt(amount));
  }
  const wallets = new Map(campaigns.map((c) => [c.advertiser_id, c.wallet_balance_micros]));

  for (const { b, i } of billable) {
    const campaign = byCampaign.get(b.claims.campaignId);
    if (!campaign) continue; // the campaign was deleted after the ad was served: nothing to bill
    const price =
      campaign.bid_model === "cpm" && b.claims.kind === "impression"
        ? campaign.bid_micros / 1000n
        : campaign.bid_model === "cpc" && b.claims.kind === "click"
          ? campaign.bid_micros
          : 0n;
    if (price === 0n) continue;
    const day = dayOf(b.createdAt, campaign.advertiser_time_zone);
    const campaignKey = `campaign:${campaign.id}:${day}`;
    const advertiserKey = `advertiser:${campaign.advertiser_id}:${day}`;
    const wallet = wallets.get(campaign.advertiser_id) ?? 0n;
    const campaignSpent = spentSoFar.get(campaignKey) ?? 0n;
    const advertiserSpent = spentSoFar.get(advertiserKey) ?? 0n;
    if (wallet <= 0n) continue;
    if (campaign.campaign_daily_budget !== null && campaignSpent >= campaign.campaign_daily_budget) continue;
    if (campaign.advertiser_daily_budget !== null && advertiserSpent >= campaign.advertiser_daily_budget) continue;
    spend[i] = price;
    days[i] = day;
    wallets.set(campaign.advertiser_id, wallet - price);
    spentSoFar.set(campaignKey, campaignSpent + price);
    spentSoFar.set(advertiserKey, advertiserSpent + price);
  }
  return { spend, days };
}

/** The dates an event's local date may be in any zone (UTC−12 to UTC+14): its UTC day and the days either side. */
const possibleLocalDays = (moment: Date): string[] => {
  const day = utcDay(moment);
  return [addDays(day, -1), day, addDays(day, 1)];
};

/** Prices a stretch's events under its advertisers' row locks, inside the settle transaction `tx`; no query when nothing is billable. */
export async function chargeSpend(tx: pg.PoolClient, batch: readonly LoggedBeacon[], statuses: readonly EventStatus[]): Promise<PricedEvents> {
  const billable = batch.filter((b, i) => isBillable(b, statuses[i]));
  if (billable.length === 0) return { spend: batch.map(() => 0n), days: batch.map(() => "") };
  const campaignIds = [...new Set(billable.map((b) => b.claims.campaignId))];
  // The zones are read with the locks, so the spend rows are asked for every date the events may
  // be on locally; priceEvents picks each event's own.
  const days = [...new Set(billable.flatMap((b) => possibleLocalDays(b.createdAt)))];
  return priceEvents(batch, statuses, await lockedBilling(tx, campaignIds, days));
}
