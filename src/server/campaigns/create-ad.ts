import { z } from "zod";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { AdStatus, AdType } from "@/server/db/generated/enums";

export const ZCreateAdInput = z.object({
  id: z.string().min(1).max(64).optional(),
  campaignId: z.string().min(1),
  name: z.string().trim().min(1).max(200),
  type: z.enum(AdType),
  size: z.string().regex(/^\d{1,4}x\d{1,4}$/, "must look like 300x250").optional(),
  mediaUrl: z.string().max(2000).optional(),
  destinationUrl: z.string().max(2000).optional(),
  status: z.enum(AdStatus).default("active"),
  productRefs: z.array(z.string().min(1)).default([]),
});
export type TCreateAdInput = z.input<typeof ZCreateAdInput>;

export async function createAd(input: TCreateAdInput) {
  const data = ZCreateAdInput.parse(input);
  return db.ad.create({
    data: {
      id: data.id ?? newId("ad"),
      campaignId: data.campaignId,
      name: data.name,
      type: data.type,
      size: data.size,
      mediaUrl: data.mediaUrl,
      destinationUrl: data.destinationUrl,
      status: data.status,
      products: { create: data.productRefs.map((productRef) => ({ productRef })) },
    },
  });
}
