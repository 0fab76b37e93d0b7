import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { toMicros } from "@/server/money";
import { type TCreateProductInput, ZCreateProductInput } from "./product-input";

export { type TCreateProductInput, ZCreateProductInput } from "./product-input";

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
