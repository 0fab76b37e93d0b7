// How far each campaign is into today's budget, and how long its advertiser's wallet lasts: read
// from the figures budget capping itself reads (spend.ts charges, candidate-ads.sql.ts stops
// serving), so "out of budget" here is exactly when Tally stops serving. Days are the
// advertiser's local dates (accounts.time_zone): today begins at its local midnight and lasts as
// long as that day really is (23 or 25 hours across a DST change). docs/pacing.md.
import { type Actor, accountsInView } from "@/server/accounts/actor";
import { addDays, utcDay } from "@/server/core/days";
import { fromMicros } from "@/server/core/money";
import { hoursInLocalDay, localDay, offsetMinutes, startOfLocalDay } from "@/server/core/time-zones";
import { type PacingRow, readPacing } from "./pacing.sql";
import type { AdvertiserPacing, CampaignPacing } from "./pacing-output";

/** How many whole days before today the wallet's "days left" averages over. */
export const LOOK_BACK_DAYS = 7;

const spentOn = (spent: Record<string, string>, day: string) => BigInt(spent[day] ?? "0");
const pad = (value: number) => String(value).padStart(2, "0");

/** The local time of day ("HH:MM") of a moment in a zone. */
function localTime(moment: Date, zone: string): string {
  const minutes = (((Math.floor(moment.getTime() / 60_000) + offsetMinutes(moment, zone)) % 1440) + 1440) % 1440;
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * Where `now` is in its local day in `zone`: the date, the share of the day's real length
 * elapsed (hours since its first moment over 23, 24 or 25), and when and at what local time the
 * next day (and so a fresh daily budget) begins: 00:00, unless a DST change skips that midnight.
 */
export function localDayAt(now: Date, zone: string) {
  const day = localDay(now, zone);
  const start = startOfLocalDay(day, zone);
  const next = startOfLocalDay(addDays(day, 1), zone);
  return {
    day,
    elapsed: (now.getTime() - start.getTime()) / (hoursInLocalDay(day, zone) * 3_600_000),
    resetsAt: next,
    resetTime: localTime(next, zone),
  };
}

/** Why capping stops serving the campaign today, in the order capping checks: null while it serves. */
function stopOf(row: PacingRow, today: string): CampaignPacing["stoppedBy"] {
  if (row.daily_budget_micros !== null && spentOn(row.campaign_spent, today) >= row.daily_budget_micros) return "campaign_budget";
  if (row.advertiser_daily_budget_micros !== null && spentOn(row.advertiser_spent, today) >= row.advertiser_daily_budget_micros) return "advertiser_budget";
  if (row.wallet_balance_micros <= 0n) return "wallet";
  return null;
}

type LocalDay = ReturnType<typeof localDayAt>;

/** A campaign's pacing at `now`, on its advertiser's local day (`local`, when already worked out for its zone). */
export function campaignPacingOf(row: PacingRow, now: Date, local: LocalDay = localDayAt(now, row.time_zone)): CampaignPacing {
  const spentMicros = spentOn(row.campaign_spent, local.day);
  const stoppedBy = stopOf(row, local.day);
  return {
    campaignId: row.campaign_id,
    advertiserId: row.advertiser_id,
    currency: row.currency,
    bidModel: row.bid_model,
    bid: fromMicros(row.bid_micros),
    dailyBudget: row.daily_budget_micros === null ? null : fromMicros(row.daily_budget_micros),
    day: local.day,
    timeZone: row.time_zone,
    dayElapsed: local.elapsed,
    resetsAt: local.resetsAt.toISOString(),
    resetTime: local.resetTime,
    spentToday: fromMicros(spentMicros),
    shareSpent: row.daily_budget_micros === null ? null : row.daily_budget_micros === 0n ? 1 : Number(spentMicros) / Number(row.daily_budget_micros),
    outOfBudgetToday: stoppedBy !== null,
    stoppedBy,
    activeWithoutActiveAds: row.status === "active" && !row.has_active_ads,
  };
}

/** The advertiser's wallet at `now`: its spend today and on each whole local day of the look-back, and the days the balance lasts at that rate. */
export function advertiserPacingOf(row: PacingRow, now: Date, local: LocalDay = localDayAt(now, row.time_zone)): AdvertiserPacing {
  const today = local.day;
  const lastDays = Array.from({ length: LOOK_BACK_DAYS }, (_, i) => addDays(today, i - LOOK_BACK_DAYS)).map((day) => ({
    day,
    micros: spentOn(row.advertiser_spent, day),
  }));
  const spentMicros = lastDays.reduce((sum, { micros }) => sum + micros, 0n);
  const averageMicros = Number(spentMicros) / LOOK_BACK_DAYS;
  const balanceMicros = row.wallet_balance_micros;
  return {
    advertiserId: row.advertiser_id,
    currency: row.currency,
    timeZone: row.time_zone,
    day: today,
    walletBalance: fromMicros(balanceMicros),
    walletEmpty: balanceMicros <= 0n,
    dailyBudget: row.advertiser_daily_budget_micros === null ? null : fromMicros(row.advertiser_daily_budget_micros),
    spentToday: fromMicros(spentOn(row.advertiser_spent, today)),
    lastDays: lastDays.map(({ day, micros }) => ({ day, spend: fromMicros(micros) })),
    averageDailySpend: fromMicros(averageMicros),
    daysLeft: spentMicros === 0n ? null : balanceMicros <= 0n ? 0 : Number(balanceMicros) / averageMicros,
  };
}

/**
 * Today's pacing of those of `campaignIds` the actor may manage, and their advertisers' wallets,
 * each on its advertiser's local day; the others (a publisher's view of campaigns on its
 * inventory) are left out, as budgets and wallets are the advertiser's. One statement whatever
 * the number of campaigns.
 */
export async function campaignPacing({ actor, campaignIds, now = new Date() }: { actor: Actor; campaignIds: readonly string[]; now?: Date }) {
  if (campaignIds.length === 0) return { campaigns: [] as CampaignPacing[], advertisers: [] as AdvertiserPacing[] };
  // Local today is within a day of the UTC one in every zone (UTC−12 to UTC+14).
  const utcToday = utcDay(now);
  const rows = await readPacing({
    campaignIds,
    advertiserIds: accountsInView(actor),
    todays: [addDays(utcToday, -1), utcToday, addDays(utcToday, 1)],
    firstDay: addDays(utcToday, -1 - LOOK_BACK_DAYS),
  });
  // Each zone's day once (the tz database is slow to ask), however many campaigns share it.
  const zones = new Map<string, LocalDay>();
  const localIn = (zone: string) => zones.get(zone) ?? zones.set(zone, localDayAt(now, zone)).get(zone)!;
  const advertisers = new Map<string, AdvertiserPacing>();
  for (const row of rows) {
    if (!advertisers.has(row.advertiser_id)) advertisers.set(row.advertiser_id, advertiserPacingOf(row, now, localIn(row.time_zone)));
  }
  return { campaigns: rows.map((row) => campaignPacingOf(row, now, localIn(row.time_zone))), advertisers: [...advertisers.values()] };
}
