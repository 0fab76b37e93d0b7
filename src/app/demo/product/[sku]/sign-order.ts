"use server";
// The demo store's checkout server: it signs an order's token with Demo Market's signing secret,
// as a publisher's server would (docs/conversions.md, "From the browser, with an order token"), so
// the demo's orders are proven and credited. It prices the line from the catalogue itself, never
// from the browser: a page could otherwise have any total signed.
import { orderTotalMicros } from "@/contracts/order-token";
import { signOrderToken } from "@/server/pipeline/accept/conversions/order-proof";
import { liveSigningSecrets } from "@/server/pipeline/accept/conversions/signing-secrets";
import { demoEnabled } from "../../demo-enabled";
import { productBySku } from "../../product-lookups";
import { DEMO_PUBLISHER_ID } from "../../products";

/** The order token for one line of `sku`, or null when the demo is off, the SKU unknown or Demo Market has no secret. */
export async function signDemoOrder(orderId: string, sku: string, quantity: number): Promise<{ token: string; price: number } | null> {
  if (!(await demoEnabled())) return null;
  // A server action takes whatever a page posts: only what the checkout's form can send is signed.
  if (typeof orderId !== "string" || orderId.length > 256 || typeof sku !== "string" || !Number.isInteger(quantity) || quantity < 1 || quantity > 99)
    return null;
  const product = await productBySku(sku);
  if (!product || product.price === null) return null;
  const secret = (await liveSigningSecrets(DEMO_PUBLISHER_ID, Date.now())).find((live) => live.current)?.secret;
  if (!secret) return null;
  const token = signOrderToken(secret, orderId, orderTotalMicros([{ quantity, promotional_price: product.price }]));
  return { token, price: product.price };
}
