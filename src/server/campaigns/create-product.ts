import { z } from "zod";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { toMicros } from "@/server/money";

export const ZCreateProductInput = z.object({
  advertiserId: z.string().min(1),
  sku: z.string().trim().min(1).max(100),
  productId: z.string().trim().min(1).max(100).optional(),
  name: z.string().trim().min(1).max(300),
  category: z.string().trim().min(1).max(200).optional(),
  imageUrl: z.string().max(2000).optional(),
  price: z.number().positive().optional(),
});
export type TCreateProductInput = z.input<typeof ZCreateProductInput>;

export async function createProduct(input: TCreateProductInput) {
  const data = ZCreateProductInput.parse(input);
  return db.product.create({
    data: {
      id: newId("prd"),
      advertiserId: data.advertiserId,
      sku: data.sku,
      productId: data.productId,
      name: data.name,
      category: data.category,
      imageUrl: data.imageUrl,
      priceMicros: data.price === undefined ? null : toMicros(data.price),
    },
  });
}
