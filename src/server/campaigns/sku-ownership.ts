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
import { type Conflict, conflictsOf, lockGlobal, lockGlobalShared, lockKeys, newPairs } from "./sku-ownership.sql";

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
    await lockGlobal(tx, LOCK_CLASS_GLOBAL);
    return;
  }
  await lockGlobalShared(tx, LOCK_CLASS_GLOBAL);
  await lockKeys(tx, LOCK_CLASS_KEY, ids);
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
  // About the products: the campaign form shows it beside them.
  return TallyError.field("productRefs", `${named.join("; ")}${more}`);
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
