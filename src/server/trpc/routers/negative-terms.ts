// A campaign's negative terms: everyone who may see its advertiser lists them; its admins and
// staff add and remove them (the rule is negative-terms.ts's, so a viewer is refused there).
import { addNegativeTerm, listNegativeTerms, removeNegativeTerm, ZNegativeTermInput } from "@/server/campaigns/negative-terms";
import { router, signedInProcedure } from "../trpc";

export const negativeTermsRouter = router({
  list: signedInProcedure
    .input(ZNegativeTermInput.pick({ campaignId: true }))
    .query(({ ctx, input }) => listNegativeTerms({ actor: ctx.viewer, campaignId: input.campaignId })),
  add: signedInProcedure.input(ZNegativeTermInput).mutation(({ ctx, input }) => addNegativeTerm({ actor: ctx.viewer, ...input })),
  remove: signedInProcedure.input(ZNegativeTermInput).mutation(({ ctx, input }) => removeNegativeTerm({ actor: ctx.viewer, ...input })),
});
