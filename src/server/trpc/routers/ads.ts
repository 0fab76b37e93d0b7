// A campaign's ads: create, edit, pause and activate, for whoever may manage the campaign's advertiser.
import { z } from "zod";
import { ZAdSettings, ZCreateAdInput } from "@/server/campaigns/ad-input";
import { createAd } from "@/server/campaigns/create-ad";
import { adSettings, setAdStatus, updateAd } from "@/server/campaigns/update-ad";
import { router, signedInProcedure } from "../trpc";

const byId = z.object({ id: z.string().min(1) });

export const adsRouter = router({
  settings: signedInProcedure.input(byId).query(({ ctx, input }) => adSettings({ actor: ctx.viewer, id: input.id })),

  create: signedInProcedure.input(ZCreateAdInput).mutation(async ({ ctx, input }) => {
    const ad = await createAd({ ...input, actor: ctx.viewer });
    return { id: ad.id };
  }),

  update: signedInProcedure.input(byId.extend({ settings: ZAdSettings })).mutation(async ({ ctx, input }) => {
    await updateAd({ actor: ctx.viewer, ...input });
    return { id: input.id };
  }),

  setStatus: signedInProcedure.input(byId.extend({ status: z.enum(["active", "paused"]) })).mutation(async ({ ctx, input }) => {
    await setAdStatus({ actor: ctx.viewer, ...input });
    return { id: input.id, status: input.status };
  }),
});
