// What a change to many campaigns at once may be (the campaign list's bulk actions), shared by the
// procedure and the dashboard: zod only. One change for every campaign named, at most
// MAX_BULK_CAMPAIGNS of them, so one request holds the campaigns' row locks for a bounded time.
import { z } from "zod";
import { MAX_DAILY_BUDGET } from "@/server/core/money";

export const MAX_BULK_CAMPAIGNS = 200;

export const ZBulkCampaignChange = z.discriminatedUnion("action", [
  z.object({ action: z.literal("pause") }),
  z.object({ action: z.literal("resume") }),
  z.object({
    action: z.literal("daily_budget"),
    dailyBudget: z
      .number({ message: "must be a number" })
      .positive("must be above 0")
      .max(MAX_DAILY_BUDGET, `must be at most ${MAX_DAILY_BUDGET.toLocaleString("en")}`),
  }),
]);
export type TBulkCampaignChange = z.infer<typeof ZBulkCampaignChange>;

export const ZBulkCampaignsInput = z.object({
  ids: z.array(z.string().min(1).max(64)).min(1, "pick at least one campaign").max(MAX_BULK_CAMPAIGNS, `at most ${MAX_BULK_CAMPAIGNS} campaigns at once`),
  change: ZBulkCampaignChange,
});
export type TBulkCampaignsInput = z.input<typeof ZBulkCampaignsInput>;

/** What became of one campaign: changed, already as asked (nothing written), or refused and why. */
export const ZBulkCampaignOutcome = z.object({
  id: z.string(),
  outcome: z.enum(["changed", "unchanged", "refused"]),
  /** Why it was refused or left as it was; absent when changed. */
  reason: z.string().optional(),
});
export type BulkCampaignOutcome = z.infer<typeof ZBulkCampaignOutcome>;
