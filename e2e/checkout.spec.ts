import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";
import { eventsOfSession, eventually, query, settled } from "./database";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

interface StoredAttribution {
  order_id: string;
  product_sku: string;
  ad_id: string;
  event_kind: string;
  session_id: string;
  quantity: number;
  total_value_micros: string;
  promotional_price_micros: string;
}

test("checkout after clicking a sponsored product: the order item is attributed to that click within a minute", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/demo");
  const sponsored = page.getByTestId("sponsored-ad").first();
  await expect(sponsored).toBeVisible();
  const adId = (await sponsored.getAttribute("data-ad-id"))!;
  const session = (await page.evaluate(() => window.localStorage.getItem("tally_sid")))!;
  await sponsored.click();
  await page.waitForURL(/\/demo\/product\//);
  const sku = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  await eventually(
    () => eventsOfSession(session),
    (events) => events.some((e) => e.kind === "click" && e.ad_id === adId),
  );

  await page.getByLabel("Quantity").fill("2");
  await page.getByLabel("E-mail").fill("  Maria.Silva@Example.COM ");
  await page.getByRole("button", { name: "Buy now" }).click();
  const orderId = (await page.getByTestId("order-id").textContent())!;
  await expect(page.getByTestId("checkout-status")).toContainText("will be processed soon");
  await page.screenshot({ path: "test-results/e2e/screens/demo-checkout.png", fullPage: true });

  // Stored as sent: the browser hashed the normalised e-mail, and the order joins this visitor. The
  // store's server signed it (an order token), so it is proven and credited.
  await settled();
  const [conversion] = await query<{ session_id: string; email_hashed: string; phone_hashed: string; verified_by: string | null; credited: boolean }>(
    "SELECT session_id, email_hashed, phone_hashed, verified_by, credited FROM conversions WHERE order_id = $1",
    [orderId],
  );
  expect(conversion).toEqual({
    session_id: session,
    email_hashed: sha256("maria.silva@example.com"),
    phone_hashed: sha256("+5511987654321"),
    verified_by: "order_token",
    credited: true,
  });

  const started = Date.now();
  const attributed = await eventually(
    () =>
      query<StoredAttribution>(
        `SELECT order_id, product_sku, ad_id, event_kind::text, session_id, quantity, total_value_micros::text, promotional_price_micros::text
         FROM attributions WHERE order_id = $1`,
        [orderId],
      ),
    (rows) => rows.length > 0,
    60_000,
  );
  expect(Date.now() - started).toBeLessThan(60_000);
  expect(attributed).toEqual([
    expect.objectContaining({ order_id: orderId, product_sku: sku, ad_id: adId, event_kind: "click", session_id: session, quantity: 2 }),
  ]);
  expect(BigInt(attributed[0]!.total_value_micros)).toBe(BigInt(attributed[0]!.promotional_price_micros) * 2n);
});

test("the checkout shows the service's 422 entries and stores nothing when the e-mail is missing", async ({ page }) => {
  await page.goto("/demo/product/ACME-PODS-50");
  await page.getByLabel("E-mail").fill("   ");
  await page.getByRole("button", { name: "Buy now" }).click();
  const error = page.getByTestId("checkout-error");
  await expect(error).toContainText("must have required property 'email_hashed'");
  const orderId = (await error.textContent())!.match(/Order (demo-[0-9a-f]+)/)![1]!;
  await settled();
  expect(await query("SELECT 1 FROM conversions WHERE order_id = $1", [orderId])).toEqual([]);
  expect(await query("SELECT 1 FROM conversion_log WHERE conversion->>'order_id' = $1", [orderId])).toEqual([]);
});
