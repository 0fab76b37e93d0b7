// Product look-ups of the demo store (server components only). The store is the demo publisher's
// (Demo Market): it shows the products its catalogue lists (publisher_catalogue, each SKU with the
// brand that owns it there), never another advertiser's products that happen to be in Tally.
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

/** The (brand, SKU) pairs the demo publisher's catalogue lists. */
const listedProducts = cache(
  async (): Promise<{ advertiserId: string; sku: string }[]> =>
    db.publisherCatalogueEntry.findMany({
      where: { publisherId: DEMO_PUBLISHER_ID },
      select: { advertiserId: true, sku: true },
      orderBy: { sku: "asc" },
      take: CATALOG_LIMIT,
    }),
);

/** The demo publisher's products whose name, SKU or category contains the term (any case); all of them for "". */
export async function searchProducts(term: string): Promise<DemoProduct[]> {
  const listed = await listedProducts();
  if (listed.length === 0) return [];
  const contains = { contains: term, mode: "insensitive" as const };
  const rows = await db.product.findMany({
    where: {
      OR: listed.map(({ advertiserId, sku }) => ({ advertiserId, sku })),
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

/** The store's product with this SKU (its catalogue names the brand), or null. */
export const productBySku = cache(async (sku: string): Promise<DemoProduct | null> => {
  const listed = await db.publisherCatalogueEntry.findUnique({
    where: { publisherId_sku: { publisherId: DEMO_PUBLISHER_ID, sku } },
    select: { advertiserId: true },
  });
  if (!listed) return null;
  const row = await db.product.findUnique({ where: { advertiserId_sku: { advertiserId: listed.advertiserId, sku } }, select });
  return row ? toDemoProduct(row) : null;
});
