// Product look-ups of the demo store (server components only). The store is the demo publisher's
// (Demo Market): it sells the products its catalogue lists (publisher_catalogue, each SKU with the
// brand that owns it there) and those a campaign running on it promotes (an account manager's new
// brand advertised there, before anyone lists it), never another advertiser's products that
// merely exist in Tally.
import { cache } from "react";
import { db } from "@/server/db/client";
import { DEMO_PUBLISHER_ID, type DemoProduct } from "./products";

/** The demo catalog is small; the cap only keeps a grown one from bloating the page. */
const CATALOG_LIMIT = 500;
const MAX_QUERY_LENGTH = 100;

const select = { sku: true, name: true, category: true, imageUrl: true, priceMicros: true } as const;

type ProductRow = { sku: string; name: string; category: string | null; imageUrl: string | null; priceMicros: bigint | null };

function toDemoProduct(row: ProductRow): DemoProduct {
  return {
    sku: row.sku,
    name: row.name,
    category: row.category,
    imageUrl: row.imageUrl,
    price: row.priceMicros === null ? null : Number(row.priceMicros) / 1_000_000,
  };
}

/** The search term of a `?q=` parameter: trimmed, bounded, the first one when repeated. */
export function searchTerm(q: string | string[] | undefined): string {
  const value = Array.isArray(q) ? q[0] : q;
  return (value ?? "").trim().slice(0, MAX_QUERY_LENGTH);
}

/** What the store sells, as Prisma conditions on products: listed pairs, and products of campaigns on it. */
const storeProducts = cache(async () => {
  const [listed, publisher] = await Promise.all([
    db.publisherCatalogueEntry.findMany({
      where: { publisherId: DEMO_PUBLISHER_ID },
      select: { advertiserId: true, sku: true },
      orderBy: { sku: "asc" },
      take: CATALOG_LIMIT,
    }),
    db.account.findUnique({ where: { id: DEMO_PUBLISHER_ID }, select: { networkId: true } }),
  ]);
  // A campaign on the publisher's network runs on the publisher too.
  const runsHere = [DEMO_PUBLISHER_ID, ...(publisher?.networkId ? [publisher.networkId] : [])];
  const promoted = {
    campaigns: { some: { campaign: { publishers: { some: { publisherId: { in: runsHere } } } } } },
    // A SKU the catalogue lists is that brand's here, whoever else promotes one of the same name.
    sku: { notIn: listed.map((entry) => entry.sku) },
  };
  return { listed, promoted };
});

/** The store's products whose name, SKU or category contains the term (any case); all of them for "". */
export async function searchProducts(term: string): Promise<DemoProduct[]> {
  const { listed, promoted } = await storeProducts();
  const contains = { contains: term, mode: "insensitive" as const };
  const rows = await db.product.findMany({
    where: {
      OR: [...listed.map(({ advertiserId, sku }) => ({ advertiserId, sku })), promoted],
      ...(term ? { AND: [{ OR: [{ name: contains }, { sku: contains }, { category: contains }] }] } : {}),
    },
    orderBy: [{ name: "asc" }, { sku: "asc" }],
    take: CATALOG_LIMIT,
    select,
  });
  return rows.map(toDemoProduct);
}

/** Every product of the store, for the sponsored cards (an ad names its product by SKU). */
export const allProducts = cache(async (): Promise<DemoProduct[]> => searchProducts(""));

/** The store's product with this SKU (the brand its catalogue names; else the oldest one promoted there), or null. */
export const productBySku = cache(async (sku: string): Promise<DemoProduct | null> => {
  const { listed, promoted } = await storeProducts();
  const brand = listed.find((entry) => entry.sku === sku);
  const row = await db.product.findFirst({
    where: brand ? { advertiserId: brand.advertiserId, sku } : { ...promoted, sku },
    orderBy: { createdAt: "asc" },
    select,
  });
  return row ? toDemoProduct(row) : null;
});
