import { z } from "zod";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { BidModel, CampaignStatus, CampaignType } from "@/server/db/generated/enums";
import { toMicros } from "@/server/money";

const isoDay = z.iso.date().transform((day) => new Date(`${day}T00:00:00Z`));

export const ZCreateCampaignInput = z
  .object({
    id: z.string().min(1).max(64).optional(),
    advertiserId: z.string().min(1),
    name: z.string().trim().min(1).max(200),
    type: z.enum(CampaignType),
    status: z.enum(CampaignStatus).default("draft"),
    startDate: isoDay,
    endDate: isoDay.optional(),
    bidModel: z.enum(BidModel),
    bid: z.number().positive(),
    dailyBudget: z.number().positive().optional(),
    /** Publisher or network accounts the campaign runs on. */
    publisherIds: z.array(z.string().min(1)).min(1),
    /** Product ids (`prd_...`) of the advertiser's catalogue. */
    productRefs: z.array(z.string().min(1)).default([]),
  })
  .refine((c) => !c.endDate || c.endDate >= c.startDate, { message: "must not be before start_date", path: ["endDate"] });
export type TCreateCampaignInput = z.input<typeof ZCreateCampaignInput>;

export async function createCampaign(input: TCreateCampaignInput) {
  const data = ZCreateCampaignInput.parse(input);
  return db.campaign.create({
    data: {
      id: data.id ?? newId("cmp"),
      advertiserId: data.advertiserId,
      name: data.name,
      type: data.type,
      status: data.status,
      startDate: data.startDate,
      endDate: data.endDate,
      bidModel: data.bidModel,
      bidMicros: toMicros(data.bid),
      dailyBudgetMicros: data.dailyBudget === undefined ? null : toMicros(data.dailyBudget),
      publishers: { create: data.publisherIds.map((publisherId) => ({ publisherId })) },
      products: { create: data.productRefs.map((productRef) => ({ productRef })) },
    },
  });
}
