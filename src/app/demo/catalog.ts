// Product look-ups of the demo store (server components only).
import { cache } from "react";
import { db } from "@/server/db/client";
import type { DemoProduct } from "./products";

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

/** Products whose name, SKU or category contains the term (any case); all products for "". */
export async function searchProducts(term: string): Promise<DemoProduct[]> {
  const contains = { contains: term, mode: "insensitive" as const };
  const rows = await db.product.findMany({
    where: term ? { OR: [{ name: contains }, { sku: contains }, { category: contains }] } : undefined,
    orderBy: [{ name: "asc" }, { sku: "asc" }],
    take: CATALOG_LIMIT,
    select,
  });
  return rows.map(toDemoProduct);
}

/** Every product, for the sponsored cards (an ad names its product by SKU). */
export const allProducts = cache(async (): Promise<DemoProduct[]> => searchProducts(""));

/** The product with this SKU (the oldest one when two advertisers share a SKU), or null. */
export const productBySku = cache(async (sku: string): Promise<DemoProduct | null> => {
  const row = await db.product.findFirst({ where: { sku }, orderBy: { createdAt: "asc" }, select });
  return row ? toDemoProduct(row) : null;
});
