// A campaign's ads: create, edit, pause and activate, for whoever may manage the campaign's advertiser.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Viewer } from "@/server/accounts/sessions";
import { ZAdSettings, ZCreateAdInput } from "@/server/campaigns/ad-input";
import { createAd } from "@/server/campaigns/create-ad";
import { adSettings, setAdStatus, updateAd } from "@/server/campaigns/update-ad";
import { db } from "@/server/db/client";
import { assertAccount, router, signedInProcedure } from "../trpc";

async function advertiserOfCampaign(viewer: Viewer, campaignId: string): Promise<string> {
  const campaign = await db.campaign.findUnique({ where: { id: campaignId }, select: { advertiserId: true } });
  if (!campaign) throw new TRPCError({ code: "NOT_FOUND", message: "no such campaign" });
  assertAccount(viewer, campaign.advertiserId, "campaign");
  return campaign.advertiserId;
}

async function manageableAd(viewer: Viewer, id: string) {
  const ad = await adSettings(id);
  if (!ad) throw new TRPCError({ code: "NOT_FOUND", message: "no such ad" });
  assertAccount(viewer, ad.advertiserId, "ad");
  return ad;
}

async function checkProducts(advertiserId: string, productRefs: string[]) {
  const found = await db.product.count({ where: { id: { in: productRefs }, advertiserId } });
  if (found !== new Set(productRefs).size) throw new TRPCError({ code: "BAD_REQUEST", message: "productRefs: every product must be one of the advertiser's" });
}

export const adsRouter = router({
  settings: signedInProcedure.input(z.object({ id: z.string().min(1) })).query(({ ctx, input }) => manageableAd(ctx.viewer, input.id)),

  create: signedInProcedure.input(ZCreateAdInput).mutation(async ({ ctx, input }) => {
    const advertiserId = await advertiserOfCampaign(ctx.viewer, input.campaignId);
    await checkProducts(advertiserId, input.productRefs ?? []);
    const ad = await createAd({ ...input, id: undefined });
    return { id: ad.id };
  }),

  update: signedInProcedure.input(z.object({ id: z.string().min(1), settings: ZAdSettings })).mutation(async ({ ctx, input }) => {
    const ad = await manageableAd(ctx.viewer, input.id);
    await checkProducts(ad.advertiserId, input.settings.productRefs ?? []);
    await updateAd(input.id, input.settings);
    return { id: input.id };
  }),

  setStatus: signedInProcedure.input(z.object({ id: z.string().min(1), status: z.enum(["active", "paused"]) })).mutation(async ({ ctx, input }) => {
    await manageableAd(ctx.viewer, input.id);
    await setAdStatus(input.id, input.status);
    return { id: input.id, status: input.status };
  }),
});
