// A publisher's catalogue: which brand (advertiser) a SKU belongs to on that publisher. A listed
// SKU (and the product id listed with it) may be put into campaigns on the publisher by that
// advertiser only, whoever promoted it first, and attribution credits its sales there to that
// advertiser's ads only. Account managers keep it (dashboard, `npm run catalogue`), since it
// decides who is paid credit for a retailer's sales, as wallets and accounts are theirs to move;
// the publisher's own users read theirs.
import { type Actor, assertAccountManager, assertMayAccess } from "@/server/accounts/actor";
import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { type TCatalogueEntryInput, ZCatalogueEntryInput, ZCatalogueKeyInput } from "./catalogue-input";
import { campaignsDisplaced, heldByMany } from "./publisher-catalogue.sql";
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
    const was = await tx.publisherCatalogueEntry.findUnique({
      where: { publisherId_sku: { publisherId: data.publisherId, sku: data.sku } },
      select: { advertiserId: true, productId: true },
    });
    await tx.publisherCatalogueEntry.upsert({
      where: { publisherId_sku: { publisherId: data.publisherId, sku: data.sku } },
      create: { publisherId: data.publisherId, sku: data.sku, advertiserId: data.advertiserId, productId: data.productId ?? null },
      update: { advertiserId: data.advertiserId, productId: data.productId ?? null },
    });
    const now = { advertiserId: data.advertiserId, productId: data.productId ?? null };
    if (was?.advertiserId !== now.advertiserId || was.productId !== now.productId) {
      await recordActivity(tx, input.actor, {
        action: "catalogue.entry.set",
        subject: `SKU ${data.sku} in the catalogue of ${publisher.name}`,
        accountId: data.publisherId,
        before: was,
        after: now,
      });
    }
    const displaced = await campaignsDisplaced(tx, {
      advertiserId: data.advertiserId,
      publisherId: data.publisherId,
      sku: data.sku,
      productId: data.productId ?? null,
    });
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
  await db.$transaction(async (tx) => {
    const entry = await tx.publisherCatalogueEntry.findUnique({
      where: { publisherId_sku: { publisherId: key.publisherId, sku: key.sku } },
      select: { advertiserId: true, productId: true },
    });
    const removed = await tx.publisherCatalogueEntry.deleteMany({ where: { publisherId: key.publisherId, sku: key.sku } });
    if (removed.count === 0 || !entry) throw new TallyError("not_found", `SKU ${key.sku} is not in the catalogue of ${key.publisherId}`);
    // Named as the entry's listing names it, so a search by the publisher's name finds both.
    const publisher = await tx.account.findUnique({ where: { id: key.publisherId }, select: { name: true } });
    await recordActivity(tx, actor, {
      action: "catalogue.entry.removed",
      subject: `SKU ${key.sku} in the catalogue of ${publisher?.name ?? key.publisherId}`,
      accountId: key.publisherId,
      before: entry,
      after: null,
    });
  });
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
  const rows = await heldByMany(publisherId ?? null);
  return rows.map((r) => ({
    publisherId: r.publisher_id,
    publisherName: r.publisher_name,
    kind: r.kind,
    value: r.value,
    advertisers: r.advertiser_ids.map((id, i) => ({ id, name: r.advertiser_names[i]! })),
    ownerId: r.owner_id,
  }));
}
