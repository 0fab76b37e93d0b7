// How far each campaign is into today's budget, and how long its advertiser's wallet lasts: read
// from the figures budget capping itself reads (spend.ts charges, candidate-ads.sql.ts stops
// serving), so "out of budget" here is exactly when Tally stops serving. docs/pacing.md.
import { type Actor, accountsInView } from "@/server/accounts/actor";
import { addDays, utcDay } from "@/server/core/days";
import { fromMicros } from "@/server/core/money";
import { type PacingRow, readPacing } from "./pacing.sql";
import type { AdvertiserPacing, CampaignPacing } from "./pacing-output";

/** How many whole days before today the wallet's "days left" averages over. */
export const LOOK_BACK_DAYS = 7;

/** Why capping stops serving the campaign today, in the order capping checks: null while it serves. */
function stopOf(row: PacingRow): CampaignPacing["stoppedBy"] {
  if (row.daily_budget_micros !== null && row.spent_today_micros >= row.daily_budget_micros) return "campaign_budget";
  if (row.advertiser_daily_budget_micros !== null && row.advertiser_spent_today_micros >= row.advertiser_daily_budget_micros) return "advertiser_budget";
  if (row.wallet_balance_micros <= 0n) return "wallet";
  return null;
}

export function campaignPacingOf(row: PacingRow, today: string): CampaignPacing {
  const stoppedBy = stopOf(row);
  return {
    campaignId: row.campaign_id,
    advertiserId: row.advertiser_id,
    currency: row.currency,
    bidModel: row.bid_model,
    bid: fromMicros(row.bid_micros),
    dailyBudget: row.daily_budget_micros === null ? null : fromMicros(row.daily_budget_micros),
    day: today,
    spentToday: fromMicros(row.spent_today_micros),
    shareSpent: row.daily_budget_micros === null ? null : row.daily_budget_micros === 0n ? 1 : Number(row.spent_today_micros) / Number(row.daily_budget_micros),
    outOfBudgetToday: stoppedBy !== null,
    stoppedBy,
    activeWithoutActiveAds: row.status === "active" && !row.has_active_ads,
  };
}

export function advertiserPacingOf(row: PacingRow): AdvertiserPacing {
  const lastDays = row.advertiser_last_days.map(([day, spend]) => ({ day, spend: fromMicros(BigInt(spend)) }));
  const spentMicros = row.advertiser_last_days.reduce((sum, [, spend]) => sum + BigInt(spend), 0n);
  const averageMicros = Number(spentMicros) / LOOK_BACK_DAYS;
  const balanceMicros = row.wallet_balance_micros;
  return {
    advertiserId: row.advertiser_id,
    currency: row.currency,
    walletBalance: fromMicros(balanceMicros),
    walletEmpty: balanceMicros <= 0n,
    dailyBudget: row.advertiser_daily_budget_micros === null ? null : fromMicros(row.advertiser_daily_budget_micros),
    spentToday: fromMicros(row.advertiser_spent_today_micros),
    lastDays,
    averageDailySpend: fromMicros(averageMicros),
    daysLeft: spentMicros === 0n ? null : balanceMicros <= 0n ? 0 : Number(balanceMicros) / averageMicros,
  };
}

/**
 * Today's pacing (UTC) of those of `campaignIds` the actor may manage, and their advertisers'
 * wallets; the others (a publisher's view of campaigns on its inventory) are left out, as budgets
 * and wallets are the advertiser's. One statement whatever the number of campaigns.
 */
export async function campaignPacing({ actor, campaignIds, now = new Date() }: { actor: Actor; campaignIds: readonly string[]; now?: Date }) {
  const today = utcDay(now);
  if (campaignIds.length === 0) return { day: today, campaigns: [] as CampaignPacing[], advertisers: [] as AdvertiserPacing[] };
  const rows = await readPacing({
    campaignIds,
    advertiserIds: accountsInView(actor),
    today,
    firstDay: addDays(today, -LOOK_BACK_DAYS),
    lastDay: addDays(today, -1),
  });
  const advertisers = new Map<string, AdvertiserPacing>();
  for (const row of rows) if (!advertisers.has(row.advertiser_id)) advertisers.set(row.advertiser_id, advertiserPacingOf(row));
  return { day: today, campaigns: rows.map((row) => campaignPacingOf(row, today)), advertisers: [...advertisers.values()] };
}
