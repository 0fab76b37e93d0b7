// Hand-written SQL of the publishers' catalogues (publisher-catalogue.ts). Prisma's tagged
// templates: every value a parameter.
import { db } from "@/server/db/client";
import type { Tx } from "./sku-ownership";

/** Campaigns of other advertisers that promote the SKU (or its product id) on the publisher or its network, still holding SKUs. */
export async function campaignsDisplaced(
  tx: Tx,
  d: { advertiserId: string; publisherId: string; sku: string; productId: string | null },
): Promise<{ campaign_id: string; campaign_name: string; advertiser_id: string; advertiser_name: string }[]> {
  return tx.$queryRaw`
      SELECT DISTINCT c.id AS campaign_id, c.name AS campaign_name, c.advertiser_id, adv.name AS advertiser_name
        FROM campaigns c
        JOIN accounts adv ON adv.id = c.advertiser_id
        JOIN campaign_publishers cp ON cp.campaign_id = c.id
        JOIN campaign_products cpr ON cpr.campaign_id = c.id
        JOIN products p ON p.id = cpr.product_ref
       WHERE c.advertiser_id <> ${d.advertiserId} AND c.status NOT IN ('ended', 'archived')
         AND (cp.publisher_id = ${d.publisherId} OR cp.publisher_id = (SELECT network_id FROM accounts WHERE id = ${d.publisherId}))
         AND (p.sku = ${d.sku} OR (${d.productId}::text IS NOT NULL AND p.product_id = ${d.productId}::text))
       ORDER BY c.id`;
}

/** Places where campaigns of more than one advertiser promote the same key, of one publisher or all (null). */
export async function heldByMany(publisherId: string | null): Promise<
  {
    publisher_id: string;
    publisher_name: string;
    kind: "sku" | "product_id";
    value: string;
    advertiser_ids: string[];
    advertiser_names: string[];
    owner_id: string | null;
  }[]
> {
  return db.$queryRaw`
    WITH holdings AS (
      SELECT DISTINCT a.id AS place_id, k.kind, k.value, c.advertiser_id
        FROM campaigns c
        JOIN campaign_publishers cp ON cp.campaign_id = c.id
        JOIN accounts a ON a.id = cp.publisher_id OR a.network_id = cp.publisher_id
        JOIN campaign_products cpr ON cpr.campaign_id = c.id
        JOIN products p ON p.id = cpr.product_ref
        CROSS JOIN LATERAL (VALUES ('sku', p.sku), ('product_id', p.product_id)) AS k(kind, value)
       WHERE c.status NOT IN ('ended', 'archived') AND k.value IS NOT NULL
         AND (${publisherId}::text IS NULL OR a.id = ${publisherId}::text)
    )
    SELECT h.place_id AS publisher_id, pl.name AS publisher_name, h.kind, h.value,
           array_agg(h.advertiser_id ORDER BY adv.name, h.advertiser_id) AS advertiser_ids,
           array_agg(adv.name ORDER BY adv.name, h.advertiser_id) AS advertiser_names,
           (SELECT pc.advertiser_id FROM publisher_catalogue pc
             WHERE pc.publisher_id = h.place_id AND ((h.kind = 'sku' AND pc.sku = h.value) OR (h.kind = 'product_id' AND pc.product_id = h.value))
             LIMIT 1) AS owner_id
      FROM holdings h
      JOIN accounts pl ON pl.id = h.place_id
      JOIN accounts adv ON adv.id = h.advertiser_id
     GROUP BY h.place_id, pl.name, h.kind, h.value
    HAVING count(*) > 1
     ORDER BY pl.name, h.place_id, h.kind DESC, h.value`;
}
