// Hand-written SQL of the SKU ownership rule (sku-ownership.ts): its advisory locks, the pairs a
// campaign would newly promote, and which of them another advertiser holds. Prisma's tagged
// templates: every value a parameter.
import type { KeyKind, Tx } from "./sku-ownership";

/** The global lock, exclusively (a writer of many keys). */
export async function lockGlobal(tx: Tx, lockClass: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${lockClass}::int4, 0)`;
}

/** The global lock, shared (a writer that then locks its keys). */
export async function lockGlobalShared(tx: Tx, lockClass: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(${lockClass}::int4, 0)`;
}

/** Each key's lock, exclusively, in the order of `ids` (sorted by the caller). */
export async function lockKeys(tx: Tx, lockClass: number, ids: number[]): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${lockClass}::int4, k) FROM unnest(${ids}::int4[]) AS k`;
}

export interface Pair {
  place_id: string;
  place_name: string;
  via_name: string | null;
  kind: KeyKind;
  value: string;
}

/**
 * The (place, key) pairs a campaign would promote with these publishers and products that it
 * does not promote now (`holdsNow`: its stored status holds SKUs; its stored publishers and
 * products are then what it promotes).
 */
export async function newPairs(tx: Tx, campaignId: string, holdsNow: boolean, publisherIds: string[], productRefs: string[]): Promise<Pair[]> {
  return tx.$queryRaw<Pair[]>`
    WITH places AS (
      SELECT DISTINCT ON (id) id, name, via_name FROM (
        SELECT a.id, a.name, NULL::text AS via_name FROM accounts a WHERE a.id = ANY(${publisherIds}::text[])
        UNION ALL
        SELECT s.id, s.name, n.name FROM accounts s JOIN accounts n ON n.id = s.network_id WHERE s.network_id = ANY(${publisherIds}::text[])
      ) p ORDER BY id, via_name NULLS FIRST
    ), keys AS (
      SELECT DISTINCT k.kind, k.value
        FROM products p CROSS JOIN LATERAL (VALUES ('sku', p.sku), ('product_id', p.product_id)) AS k(kind, value)
       WHERE p.id = ANY(${productRefs}::text[]) AND k.value IS NOT NULL
    ), held AS (
      SELECT a.id AS place_id, k.kind, k.value
        FROM campaign_publishers cp
        JOIN accounts a ON a.id = cp.publisher_id OR a.network_id = cp.publisher_id
        JOIN campaign_products cpr ON cpr.campaign_id = cp.campaign_id
        JOIN products p ON p.id = cpr.product_ref
        CROSS JOIN LATERAL (VALUES ('sku', p.sku), ('product_id', p.product_id)) AS k(kind, value)
       WHERE cp.campaign_id = ${campaignId} AND ${holdsNow}::boolean AND k.value IS NOT NULL
    )
    SELECT pl.id AS place_id, pl.name AS place_name, pl.via_name, k.kind, k.value
      FROM places pl CROSS JOIN keys k
     WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.place_id = pl.id AND h.kind = k.kind AND h.value = k.value)
     ORDER BY pl.name, k.kind DESC, k.value`;
}

export interface Conflict extends Pair {
  /** The advertiser the publisher's catalogue lists for the key, if any. */
  owner: string | null;
}

/**
 * Of these pairs, those the advertiser may not add: listed for another advertiser in the place's
 * catalogue, or, when not listed, promoted there by a campaign of another advertiser.
 */
export async function conflictsOf(tx: Tx, advertiserId: string, campaignId: string, pairs: Pair[]): Promise<Conflict[]> {
  const rows = await tx.$queryRaw<{ i: number; owner: string | null }[]>`
    SELECT n.i::int AS i, o.owner
      FROM unnest(${pairs.map((p) => p.place_id)}::text[], ${pairs.map((p) => p.kind)}::text[], ${pairs.map((p) => p.value)}::text[]) WITH ORDINALITY AS n(place_id, kind, value, i)
      LEFT JOIN LATERAL (
        SELECT pc.advertiser_id AS owner FROM publisher_catalogue pc
         WHERE pc.publisher_id = n.place_id AND n.kind = 'sku' AND pc.sku = n.value
        UNION ALL
        SELECT pc.advertiser_id FROM publisher_catalogue pc
         WHERE pc.publisher_id = n.place_id AND n.kind = 'product_id' AND pc.product_id = n.value
        LIMIT 1
      ) o ON true
     WHERE CASE WHEN o.owner IS NOT NULL THEN o.owner <> ${advertiserId}
           ELSE EXISTS (
             SELECT 1
               FROM products p
               JOIN campaign_products cpr ON cpr.product_ref = p.id
               JOIN campaigns c ON c.id = cpr.campaign_id
               JOIN campaign_publishers cp ON cp.campaign_id = c.id
              WHERE ((n.kind = 'sku' AND p.sku = n.value) OR (n.kind = 'product_id' AND p.product_id = n.value))
                AND c.advertiser_id <> ${advertiserId} AND c.id <> ${campaignId}
                AND c.status NOT IN ('ended', 'archived')
                AND (cp.publisher_id = n.place_id OR cp.publisher_id = (SELECT network_id FROM accounts WHERE id = n.place_id)))
           END
     ORDER BY n.i`;
  return rows.map((row) => ({ ...pairs[row.i - 1]!, owner: row.owner }));
}
