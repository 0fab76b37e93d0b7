// An advertiser's catalogue: the products its campaigns and ads promote, matched against order
// items by SKU (or product id).
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createProduct } from "@/server/campaigns/create-product";
import { ZCreateProductInput } from "@/server/campaigns/product-input";
import { db } from "@/server/db/client";
import { fromMicros } from "@/server/money";
import { assertAccount, router, signedInProcedure } from "../trpc";

export const productsRouter = router({
  list: signedInProcedure.input(z.object({ advertiserId: z.string().min(1) })).query(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.advertiserId, "account");
    const products = await db.product.findMany({ where: { advertiserId: input.advertiserId }, orderBy: { name: "asc" } });
    return products.map((p) => ({
      id: p.id,
      sku: p.sku,
      productId: p.productId,
      name: p.name,
      category: p.category,
      imageUrl: p.imageUrl,
      price: p.priceMicros === null ? null : fromMicros(p.priceMicros),
    }));
  }),
  create: signedInProcedure.input(ZCreateProductInput).mutation(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.advertiserId, "account");
    const advertiser = await db.account.findUnique({ where: { id: input.advertiserId }, select: { kind: true } });
    if (advertiser?.kind !== "advertiser") throw new TRPCError({ code: "BAD_REQUEST", message: "products belong to advertiser accounts" });
    if (await db.product.count({ where: { advertiserId: input.advertiserId, sku: input.sku.trim() } })) {
      throw new TRPCError({ code: "BAD_REQUEST", message: `the advertiser already has a product with SKU ${input.sku.trim()}` });
    }
    const product = await createProduct(input);
    return { id: product.id };
  }),
});
