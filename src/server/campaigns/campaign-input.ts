// The campaign form's schemas, shared by the server and the dashboard: zod only.
import { z } from "zod";
import { MAX_BID, MAX_DAILY_BUDGET } from "@/server/core/money";
import { BidModel, CampaignStatus, CampaignType } from "@/server/db/generated/enums";

// Days stay YYYY-MM-DD strings, which compare in calendar order: parsing parsed settings again
// (a procedure's input, then the domain function) gives the same settings.
const isoDay = z.iso.date({ message: "must be a date" });

/** What a campaign is: everything the dashboard's form edits. */
export const ZCampaignSettings = z
  .object({
    name: z.string().trim().min(1, "is required").max(200),
    type: z.enum(CampaignType),
    status: z.enum(CampaignStatus).default("draft"),
    startDate: isoDay,
    endDate: isoDay.optional(),
    bidModel: z.enum(BidModel),
    bid: z
      .number({ message: "must be a number" })
      .positive("must be above 0")
      .max(MAX_BID, `must be at most ${MAX_BID.toLocaleString("en")}`),
    dailyBudget: z
      .number({ message: "must be a number" })
      .positive("must be above 0")
      .max(MAX_DAILY_BUDGET, `must be at most ${MAX_DAILY_BUDGET.toLocaleString("en")}`)
      .optional(),
    /** Publisher or network accounts the campaign runs on. */
    publisherIds: z.array(z.string().min(1)).min(1, "pick at least one publisher"),
    /** Product ids (`prd_...`) of the advertiser's catalogue. */
    productRefs: z.array(z.string().min(1)).default([]),
  })
  .refine((c) => !c.endDate || c.endDate >= c.startDate, { message: "must not be before the start date", path: ["endDate"] });

export const ZCreateCampaignInput = z.object({ id: z.string().min(1).max(64).optional(), advertiserId: z.string().min(1) }).and(ZCampaignSettings);
export type TCreateCampaignInput = z.input<typeof ZCreateCampaignInput>;
export type TCampaignSettings = z.input<typeof ZCampaignSettings>;
