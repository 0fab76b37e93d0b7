// Whose SKU it is on a publisher. Attribution credits an order item to a campaign whose products
// have the item's SKU (or product id), so a campaign that promotes a SKU on a publisher claims
// that SKU's sales there. The rule: an advertiser cannot put a SKU (or a product id) into a
// campaign on a publisher where another advertiser's campaign already promotes it, unless the
// publisher's catalogue lists it as the advertiser's; a SKU the catalogue lists as someone else's
// is refused even when nobody promotes it yet. docs/decisions/0034-sku-ownership.md has why.
//
// A campaign "promotes" a key on a place when its status is draft, active or paused (ended and
// archived campaigns release their keys), one of its publishers is that place or the place's
// network, and one of its products has that SKU or product id. A network among a campaign's
// publishers means the network itself and every sub-publisher.
//
// Race-free: every write that adds a (place, key) pair to a campaign takes a transaction-scoped
// advisory lock per key (sorted, so writers never deadlock) before it reads what others promote;
// two advertisers claiming one SKU at the same moment are serialised and the second sees the
// first's commit. The lock is taken in its own statement, before the check, so the check's
// snapshot (read committed: one per statement) includes everything the previous holder wrote.
import { createHash } from "node:crypto";
import { TallyError } from "@/server/core/errors";
import type { Prisma } from "@/server/db/generated/client";
import type { CampaignStatus } from "@/server/db/generated/enums";

export type Tx = Prisma.TransactionClient;

/** What order items are matched on: the SKU, or the product id (a group of SKUs). */
export type KeyKind = "sku" | "product_id";
export interface SellingKey {
  kind: KeyKind;
  value: string;
}

/** Ended and archived campaigns release their SKUs; draft, active and paused ones hold them. */
export const releasesSkus = (status: CampaignStatus): boolean => status === "ended" || status === "archived";

// Advisory locks of the two-int form live apart from the one-bigint locks of the beacon path.
// Every writer takes the global lock shared and then its keys' locks exclusively; a writer with
// more keys than KEY_LOCK_LIMIT takes the global lock exclusively instead, so a campaign of
// thousands of products never fills Postgres's shared lock table.
const LOCK_CLASS_GLOBAL = 0x54_4c_59_00; // "TLY\0"
const LOCK_CLASS_KEY = 0x54_4c_59_01;
const KEY_LOCK_LIMIT = 64;

const keyLockId = (key: SellingKey) => createHash("sha256").update(`${key.kind}\u0000${key.value}`).digest().readInt32BE(0);

/** Serialises every transaction that may add these keys anywhere; held until commit or rollback. */
export async function lockSellingKeys(tx: Tx, keys: SellingKey[]): Promise<void> {
  const ids = [...new Set(keys.map(keyLockId))].sort((a, b) => a - b);
  if (ids.length === 0) return;
  if (ids.length > KEY_LOCK_LIMIT) {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS_GLOBAL}::int4, 0)`;
    return;
  }
  await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(${LOCK_CLASS_GLOBAL}::int4, 0)`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS_KEY}::int4, k) FROM unnest(${ids}::int4[]) AS k`;
}

interface Pair {
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
async function newPairs(tx: Tx, campaignId: string, holdsNow: boolean, publisherIds: string[], productRefs: string[]): Promise<Pair[]> {
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

interface Conflict extends Pair {
  /** The advertiser the publisher's catalogue lists for the key, if any. */
  owner: string | null;
}

/**
 * Of these pairs, those the advertiser may not add: listed for another advertiser in the place's
 * catalogue, or, when not listed, promoted there by a campaign of another advertiser.
 */
async function conflictsOf(tx: Tx, advertiserId: string, campaignId: string, pairs: Pair[]): Promise<Conflict[]> {
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

const MAX_NAMED = 3;

function refusal(conflicts: Conflict[]): TallyError {
  const named = conflicts.slice(0, MAX_NAMED).map((c) => {
    const what = c.kind === "sku" ? `SKU ${c.value}` : `product id ${c.value}`;
    const where = c.via_name ? `${c.place_name} (through ${c.via_name})` : c.place_name;
    const why = c.owner ? `by ${c.place_name}'s catalogue` : "whose campaign already promotes it there";
    return `${what} belongs to another advertiser on ${where}, ${why}`;
  });
  const more = conflicts.length > MAX_NAMED ? `; and ${conflicts.length - MAX_NAMED} more` : "";
  // The field name first: the campaign form shows the message beside its products.
  return new TallyError("bad_request", `productRefs: ${named.join("; ")}${more}`);
}

export interface CampaignSelling {
  /** The campaign's id (one not stored yet for a new campaign). */
  id: string;
  advertiserId: string;
  /** The status it will have. */
  status: CampaignStatus;
  publisherIds: string[];
  productRefs: string[];
  /** Whether its stored status holds SKUs: its stored publishers and products are then already claimed. */
  holdsNow: boolean;
}

/**
 * Throws a TallyError naming the SKUs (and product ids) the campaign may not promote where it
 * will run; otherwise returns with the keys it adds locked until the caller's transaction ends,
 * so the caller's writes land before any competing claim is checked.
 */
export async function assertCampaignMaySell(tx: Tx, campaign: CampaignSelling): Promise<void> {
  if (releasesSkus(campaign.status) || campaign.publisherIds.length === 0 || campaign.productRefs.length === 0) return;
  const pairs = await newPairs(tx, campaign.id, campaign.holdsNow, campaign.publisherIds, campaign.productRefs);
  if (pairs.length === 0) return;
  await lockSellingKeys(tx, pairs);
  const conflicts = await conflictsOf(tx, campaign.advertiserId, campaign.id, pairs);
  if (conflicts.length > 0) throw refusal(conflicts);
}
