import { type Actor, assertMayAccess } from "@/server/accounts/actor";
import { db } from "@/server/db/client";

/** What the campaign form of an advertiser the actor may manage offers: the publishers to run on, and the advertiser's products. */
export async function campaignFormOptions({ actor, advertiserId }: { actor: Actor; advertiserId: string }) {
  assertMayAccess(actor, advertiserId, "account");
  const [publishers, products] = await Promise.all([
    db.account.findMany({ where: { kind: { in: ["publisher", "network"] } }, select: { id: true, name: true, kind: true }, orderBy: { name: "asc" } }),
    db.product.findMany({ where: { advertiserId }, select: { id: true, sku: true, name: true }, orderBy: { name: "asc" } }),
  ]);
  return { publishers, products };
}
