// An advertiser's catalogue: the products its campaigns and ads promote, matched against order
// items by SKU (or product id).
import { z } from "zod";
import { createProduct } from "@/server/campaigns/create-product";
import { listProducts } from "@/server/campaigns/list-products";
import { ZCreateProductInput } from "@/server/campaigns/product-input";
import { router, signedInProcedure } from "../trpc";

export const productsRouter = router({
  list: signedInProcedure
    .input(z.object({ advertiserId: z.string().min(1) }))
    .query(({ ctx, input }) => listProducts({ actor: ctx.viewer, advertiserId: input.advertiserId })),
  create: signedInProcedure.input(ZCreateProductInput).mutation(async ({ ctx, input }) => {
    const product = await createProduct({ ...input, actor: ctx.viewer });
    return { id: product.id };
  }),
});
