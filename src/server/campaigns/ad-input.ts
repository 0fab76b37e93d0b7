// The ad form's schemas, shared by the server and the dashboard: zod only.
import { z } from "zod";
import { AdStatus, AdType, type CampaignType } from "@/server/db/generated/enums";

/**
 * The ads each kind of campaign runs: sponsored products (product campaigns) show products in the
 * shop's own look, display campaigns banners, video campaigns video; the ad query and the reports
 * take an ad's kind to be its campaign's.
 */
export const AD_TYPES_OF_CAMPAIGN: Record<CampaignType, readonly AdType[]> = {
  product: ["product"],
  display: ["banner"],
  video: ["video"],
};

const url = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => /^(https?:\/\/|\/)/.test(value), "must be an http(s) address or a path starting with /");

export const ZAdSettings = z
  .object({
    name: z.string().trim().min(1, "is required").max(200),
    type: z.enum(AdType),
    /** "WIDTHxHEIGHT" for banners and video; none for sponsored products. */
    size: z
      .string()
      .regex(/^\d{1,4}x\d{1,4}$/, "must look like 300x250")
      .optional(),
    mediaUrl: url.optional(),
    destinationUrl: url.optional(),
    status: z.enum(AdStatus).default("active"),
    productRefs: z.array(z.string().min(1)).default([]),
  })
  .refine((ad) => ad.type === "product" || ad.size !== undefined, { message: "is required for banners and video", path: ["size"] })
  .refine((ad) => ad.type === "product" || ad.mediaUrl !== undefined, { message: "is required for banners and video", path: ["mediaUrl"] });

export const ZCreateAdInput = z
  .object({
    id: z.string().min(1).max(64).optional(),
    campaignId: z.string().min(1),
    /** Starts a draft campaign with this ad, its first active one (create-ad.ts). */
    activateCampaign: z.boolean().optional(),
  })
  .and(ZAdSettings);
export type TCreateAdInput = z.input<typeof ZCreateAdInput>;
export type TAdSettings = z.input<typeof ZAdSettings>;
