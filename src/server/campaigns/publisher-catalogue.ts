// A publisher's catalogue: which brand (advertiser) a SKU belongs to on that publisher. A listed
// SKU (and the product id listed with it) may be put into campaigns on the publisher by that
// advertiser only, whoever promoted it first, and attribution credits its sales there to that
// advertiser's ads only. Account managers keep it (dashboard, `npm run catalogue`), since it
// decides who is paid credit for a retailer's sales, as wallets and accounts are theirs to move;
// the publisher's own users read theirs.
import { type Actor, assertAccountManager, assertMayAccess } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { type TCatalogueEntryInput, ZCatalogueEntryInput, ZCatalogueKeyInput } from "./catalogue-input";
import { lockSellingKeys, type SellingKey } from "./sku-ownership";

export { type TCatalogueEntryInput, ZCatalogueEntryInput } from "./catalogue-input";

export interface CatalogueEntry {
  publisherId: string;
  sku: string;
  productId: string | null;
  advertiserId: string;
  advertiserName: string;
}

export async function listCatalogue({ actor, publisherId }: { actor: Actor; publisherId: string }): Promise<CatalogueEntry[]> {
  assertMayAccess(actor, publisherId, "account");
  const rows = await db.publisherCatalogueEntry.findMany({
    where: { publisherId },
    include: { advertiser: { select: { name: true } } },
    orderBy: { sku: "asc" },
  });
  return rows.map((r) => ({ publisherId: r.publisherId, sku: r.sku, productId: r.productId, advertiserId: r.advertiserId, advertiserName: r.advertiser.name }));
}

/** A campaign of another advertiser that promotes a catalogue entry's SKU or product id on its publisher. */
export interface DisplacedCampaign {
  campaignId: string;
  campaignName: string;
  advertiserId: string;
  advertiserName: string;
}

/**
 * Lists (or re-assigns) a SKU on a publisher. Campaigns of other advertisers that already promote
 * it there keep it, but from now on get no credit for its sales on this publisher; they are
 * returned so whoever listed it can tell their owners. For account managers only.
 */
export async function setCatalogueEntry(input: TCatalogueEntryInput & { actor: Actor }): Promise<{ entry: CatalogueEntry; displaced: DisplacedCampaign[] }> {
  assertAccountManager(input.actor);
  const data = ZCatalogueEntryInput.parse(input);
  const [publisher, advertiser] = await Promise.all([
    db.account.findUnique({ where: { id: data.publisherId }, select: { kind: true, name: true } }),
    db.account.findUnique({ where: { id: data.advertiserId }, select: { kind: true, name: true } }),
  ]);
  if (!publisher || publisher.kind === "advertiser") throw new TallyError("bad_request", "publisherId: catalogues belong to publisher and network accounts");
  if (advertiser?.kind !== "advertiser") throw new TallyError("bad_request", "advertiserId: a SKU belongs to an advertiser account");
  const keys: SellingKey[] = [{ kind: "sku", value: data.sku }];
  if (data.productId) keys.push({ kind: "product_id", value: data.productId });

  return db.$transaction(async (tx) => {
    // The same locks as campaign writes: a claim of this SKU waits for the entry, then sees it.
    await lockSellingKeys(tx, keys);
    if (data.productId) {
      // A product id is one brand's on a publisher: its SKUs cannot be listed for two advertisers.
      const other = await tx.publisherCatalogueEntry.findFirst({
        where: { publisherId: data.publisherId, productId: data.productId, advertiserId: { not: data.advertiserId }, sku: { not: data.sku } },
        select: { sku: true },
      });
      if (other)
        throw new TallyError("bad_request", `productId: product id ${data.productId} is listed for another advertiser on ${publisher.name} (SKU ${other.sku})`);
    }
    await tx.publisherCatalogueEntry.upsert({
      where: { publisherId_sku: { publisherId: data.publisherId, sku: data.sku } },
      create: { publisherId: data.publisherId, sku: data.sku, advertiserId: data.advertiserId, productId: data.productId ?? null },
      update: { advertiserId: data.advertiserId, productId: data.productId ?? null },
    });
    const displaced = await tx.$queryRaw<{ campaign_id: string; campaign_name: string; advertiser_id: string; advertiser_name: string }[]>`
      SELECT DISTINCT c.id AS campaign_id, c.name AS campaign_name, c.advertiser_id, adv.name AS advertiser_name
        FROM campaigns c
        JOIN accounts adv ON adv.id = c.advertiser_id
        JOIN campaign_publishers cp ON cp.campaign_id = c.id
        JOIN campaign_products cpr ON cpr.campaign_id = c.id
        JOIN products p ON p.id = cpr.product_ref
       WHERE c.advertiser_id <> ${data.advertiserId} AND c.status NOT IN ('ended', 'archived')
         AND (cp.publisher_id = ${data.publisherId} OR cp.publisher_id = (SELECT network_id FROM accounts WHERE id = ${data.publisherId}))
         AND (p.sku = ${data.sku} OR (${data.productId ?? null}::text IS NOT NULL AND p.product_id = ${data.productId ?? null}::text))
       ORDER BY c.id`;
    return {
      entry: {
        publisherId: data.publisherId,
        sku: data.sku,
        productId: data.productId ?? null,
        advertiserId: data.advertiserId,
        advertiserName: advertiser.name,
      },
      displaced: displaced.map((d) => ({
        campaignId: d.campaign_id,
        campaignName: d.campaign_name,
        advertiserId: d.advertiser_id,
        advertiserName: d.advertiser_name,
      })),
    };
  });
}

/** Takes a SKU off a publisher's catalogue (account managers only): it is again whoever's campaign promotes it first. */
export async function removeCatalogueEntry({ actor, publisherId, sku }: { actor: Actor; publisherId: string; sku: string }): Promise<void> {
  assertAccountManager(actor);
  const key = ZCatalogueKeyInput.parse({ publisherId, sku });
  const removed = await db.publisherCatalogueEntry.deleteMany({ where: { publisherId: key.publisherId, sku: key.sku } });
  if (removed.count === 0) throw new TallyError("not_found", `SKU ${key.sku} is not in the catalogue of ${key.publisherId}`);
}

/** A SKU or product id that campaigns of several advertisers promote on one publisher. */
export interface SkuConflict {
  publisherId: string;
  publisherName: string;
  kind: "sku" | "product_id";
  value: string;
  advertisers: { id: string; name: string }[];
  /** The advertiser the catalogue lists: attribution credits it alone. Null: not settled yet. */
  ownerId: string | null;
}

/**
 * Places where campaigns of more than one advertiser promote the same SKU or product id: made
 * before the rule existed, or since settled by the catalogue (ownerId). Unsettled ones are
 * credited as before (the winning touch, whoever's it is) until the catalogue names the brand.
 * For account managers (the operator when no actor is given).
 */
export async function skuConflicts({ actor, publisherId }: { actor: Actor; publisherId?: string }): Promise<SkuConflict[]> {
  assertAccountManager(actor);
  const rows = await db.$queryRaw<
    {
      publisher_id: string;
      publisher_name: string;
      kind: "sku" | "product_id";
      value: string;
      advertiser_ids: string[];
      advertiser_names: string[];
      owner_id: string | null;
    }[]
  >`
    WITH holdings AS (
      SELECT DISTINCT a.id AS place_id, k.kind, k.value, c.advertiser_id
        FROM campaigns c
        JOIN campaign_publishers cp ON cp.campaign_id = c.id
        JOIN accounts a ON a.id = cp.publisher_id OR a.network_id = cp.publisher_id
        JOIN campaign_products cpr ON cpr.campaign_id = c.id
        JOIN products p ON p.id = cpr.product_ref
        CROSS JOIN LATERAL (VALUES ('sku', p.sku), ('product_id', p.product_id)) AS k(kind, value)
       WHERE c.status NOT IN ('ended', 'archived') AND k.value IS NOT NULL
         AND (${publisherId ?? null}::text IS NULL OR a.id = ${publisherId ?? null}::text)
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
  return rows.map((r) => ({
    publisherId: r.publisher_id,
    publisherName: r.publisher_name,
    kind: r.kind,
    value: r.value,
    advertisers: r.advertiser_ids.map((id, i) => ({ id, name: r.advertiser_names[i]! })),
    ownerId: r.owner_id,
  }));
}
