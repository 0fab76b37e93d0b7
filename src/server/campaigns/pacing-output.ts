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
  /** The UTC day the figures are of. */
  day,
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
  walletBalance: z.number(),
  walletEmpty: z.boolean(),
  dailyBudget: z.number().nullable(),
  spentToday: z.number(),
  /** The 7 whole UTC days before today, oldest first, each with the advertiser's spend. */
  lastDays: z.array(z.object({ day, spend: z.number() })),
  averageDailySpend: z.number(),
  /** walletBalance / averageDailySpend (0 once the wallet is empty); null when nothing was spent. */
  daysLeft: z.number().nullable(),
});
export type AdvertiserPacing = z.infer<typeof ZAdvertiserPacing>;
