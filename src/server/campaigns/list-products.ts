import { type Actor, assertMayAccess } from "@/server/accounts/actor";
import { fromMicros } from "@/server/core/money";
import { db } from "@/server/db/client";

/** The catalogue of an advertiser the actor may see, by name, prices in currency units. */
export async function listProducts({ actor, advertiserId }: { actor: Actor; advertiserId: string }) {
  assertMayAccess(actor, advertiserId, "account");
  const products = await db.product.findMany({ where: { advertiserId }, orderBy: { name: "asc" } });
  return products.map((p) => ({
    id: p.id,
    sku: p.sku,
    productId: p.productId,
    name: p.name,
    category: p.category,
    imageUrl: p.imageUrl,
    price: p.priceMicros === null ? null : fromMicros(p.priceMicros),
  }));
}
