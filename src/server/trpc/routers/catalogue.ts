// A publisher's catalogue: which advertiser each SKU belongs to there. The publisher's users read
// it; account managers keep it, because it decides whose ads are credited with a retailer's sales.
import { z } from "zod";
import { ZCatalogueEntryInput, ZCatalogueKeyInput } from "@/server/campaigns/catalogue-input";
import { listCatalogue, removeCatalogueEntry, setCatalogueEntry, skuConflicts } from "@/server/campaigns/publisher-catalogue";
import { router, signedInProcedure, staffProcedure } from "../trpc";

export const catalogueRouter = router({
  list: signedInProcedure
    .input(z.object({ publisherId: z.string().min(1) }))
    .query(({ ctx, input }) => listCatalogue({ actor: ctx.viewer, publisherId: input.publisherId })),

  /** Lists or re-assigns a SKU; answers with the other advertisers' campaigns that lose its credit there. */
  set: staffProcedure.input(ZCatalogueEntryInput).mutation(({ ctx, input }) => setCatalogueEntry({ ...input, actor: ctx.viewer })),

  remove: staffProcedure.input(ZCatalogueKeyInput).mutation(async ({ ctx, input }) => {
    await removeCatalogueEntry({ actor: ctx.viewer, ...input });
    return { publisherId: input.publisherId, sku: input.sku };
  }),

  /** SKUs and product ids that campaigns of several advertisers promote on one publisher. */
  conflicts: staffProcedure
    .input(z.object({ publisherId: z.string().min(1).optional() }))
    .query(({ ctx, input }) => skuConflicts({ actor: ctx.viewer, publisherId: input.publisherId })),
});
