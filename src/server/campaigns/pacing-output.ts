// What the dashboard is told of a campaign's pacing and its advertiser's wallet (pacing.ts):
// zod only, so the procedures' output checks and the screens' types are one schema.
import { z } from "zod";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const PACING_STOPS = ["campaign_budget", "advertiser_budget", "wallet"] as const;

export const ZCampaignPacing = z.object({
  campaignId: z.string(),
  advertiserId: z.string(),
  /** The advertiser's currency: every amount below is in it, in major units. */
  currency: z.string(),
  bidModel: z.enum(["cpm", "cpc"]),
  /** CPM: per thousand counted impressions; CPC: per counted click. */
  bid: z.number(),
  dailyBudget: z.number().nullable(),
  /** The advertiser's local date the figures are of, in `timeZone`. */
  day,
  /** The advertiser's IANA time zone: its daily budgets run from local midnight to local midnight. */
  timeZone: z.string(),
  /** The share of `day` elapsed (0 to 1), over the day's real length: 23 or 25 hours across a DST change. */
  dayElapsed: z.number(),
  /** When the next local day, and so a fresh daily budget, begins (UTC, ISO 8601). */
  resetsAt: z.string(),
  /** That moment's local time in `timeZone`, "00:00" unless a DST change skips midnight. */
  resetTime: z.string(),
  spentToday: z.number(),
  /** spentToday / dailyBudget; above 1 by at most one event's price; null without a budget. */
  shareSpent: z.number().nullable(),
  /** Budget capping stopped serving the campaign for the rest of the day, and why. */
  outOfBudgetToday: z.boolean(),
  stoppedBy: z.enum(PACING_STOPS).nullable(),
  /** Active, yet no active ad to serve. */
  activeWithoutActiveAds: z.boolean(),
});
export type CampaignPacing = z.infer<typeof ZCampaignPacing>;

export const ZAdvertiserPacing = z.object({
  advertiserId: z.string(),
  currency: z.string(),
  /** The advertiser's IANA time zone: its days below are local dates there. */
  timeZone: z.string(),
  /** The advertiser's local date today. */
  day,
  walletBalance: z.number(),
  walletEmpty: z.boolean(),
  dailyBudget: z.number().nullable(),
  spentToday: z.number(),
  /** The 7 whole local days before today, oldest first, each with the advertiser's spend. */
  lastDays: z.array(z.object({ day, spend: z.number() })),
  averageDailySpend: z.number(),
  /** walletBalance / averageDailySpend (0 once the wallet is empty); null when nothing was spent. */
  daysLeft: z.number().nullable(),
});
export type AdvertiserPacing = z.infer<typeof ZAdvertiserPacing>;
