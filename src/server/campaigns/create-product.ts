import { type Actor, assertMayChange } from "@/server/accounts/actor";
import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type TCreateProductInput, ZCreateProductInput } from "./product-input";

export { type TCreateProductInput, ZCreateProductInput } from "./product-input";

/**
 * Adds a product to the catalogue of an advertiser the actor may manage (the operator when no
 * actor is given): advertiser accounts only, one product per SKU.
 */
export async function createProduct(input: TCreateProductInput & { actor: Actor }) {
  const data = ZCreateProductInput.parse(input);
  assertMayChange(input.actor, data.advertiserId, "account");
  const advertiser = await db.account.findUnique({ where: { id: data.advertiserId }, select: { kind: true } });
  if (advertiser?.kind !== "advertiser") throw new TallyError("bad_request", "products belong to advertiser accounts");
  if (await db.product.count({ where: { advertiserId: data.advertiserId, sku: data.sku } })) {
    throw new TallyError("bad_request", `the advertiser already has a product with SKU ${data.sku}`);
  }
  const id = newId("prd");
  return db.$transaction(async (tx) => {
    const product = await tx.product.create({
      data: {
        id,
        advertiserId: data.advertiserId,
        sku: data.sku,
        productId: data.productId,
        name: data.name,
        category: data.category,
        imageUrl: data.imageUrl,
        priceMicros: data.price === undefined ? null : toMicros(data.price),
      },
    });
    await recordActivity(tx, input.actor, {
      action: "product.created",
      subject: `product ${data.name} (${id})`,
      accountId: data.advertiserId,
      before: null,
      after: { sku: data.sku, productId: data.productId ?? null, name: data.name, category: data.category ?? null, price: data.price ?? null },
    });
    return product;
  });
}
