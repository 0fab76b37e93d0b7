// The demo store's view of a product, safe to pass from server components to client components
// (no BigInt), and its price formatting. No server imports: the client components use it too.

export interface DemoProduct {
  sku: string;
  name: string;
  category: string | null;
  imageUrl: string | null;
  /** In currency units (the database keeps micro-units); null when the product has no price. */
  price: number | null;
}

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function formatPrice(price: number | null): string {
  return price === null ? "Price on request" : usd.format(price);
}

export function productHref(sku: string): string {
  return `/demo/product/${encodeURIComponent(sku)}`;
}

/** The publisher the demo store is in Tally (prisma/seed.ts creates it). */
export const DEMO_PUBLISHER_ID = "pub_demo_market";
/** The demo store's site of that publisher, which has two (the web store and an app). */
export const DEMO_SITE = "demomarket.com";
