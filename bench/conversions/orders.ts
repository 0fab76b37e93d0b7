// The conversions the intake benchmark posts: orders of five lines from the demo catalogue on
// Demo Market (which has two sites, so `brand` names one), each with its own order id, a valid
// SHA-256 e-mail hash and `created_at` set when the body is built.
import { createHash } from "node:crypto";

/** SKUs of the demo seed's catalogue (prisma/seed.ts), all in campaigns. */
export const DEMO_SKUS = ["ACME-BEANS-1KG", "ACME-GROUND-500", "ACME-PODS-50", "NW-TENT-2P", "NW-BOOT-42", "BS-PASTE-100", "BS-BRUSH-SOFT"] as const;

export const ORDER_PREFIX = "bench-conv";
export const ITEMS_PER_ORDER = 5;

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** The JSON body of order number `n` (order id `${ORDER_PREFIX}-${n}`). */
export function conversionBody(n: number, createdAt = new Date().toISOString()): string {
  const user = `bench-shopper-${n % 50_000}`;
  return JSON.stringify({
    publisher_id: "pub_demo_market",
    brand: "demomarket.com",
    user_id: user,
    session_id: `${user}-session-${n}`,
    order_id: `${ORDER_PREFIX}-${n}`,
    created_at: createdAt,
    channel: "online store",
    email_hashed: sha256(`${user}@example.com`),
    phone_hashed: sha256(`+5511${String(n % 100_000_000).padStart(8, "0")}`),
    uf: "SP",
    city: "São Paulo",
    gender: n % 2 === 0 ? "F" : "M",
    is_company: false,
    items: Array.from({ length: ITEMS_PER_ORDER }, (_, position) => {
      const sku = DEMO_SKUS[(n + position) % DEMO_SKUS.length]!;
      return { sku, quantity: 1 + ((n + position) % 3), price: 19.9 + position, promotional_price: 17.5 + position, seller_id: "seller-1001" };
    }),
  });
}
