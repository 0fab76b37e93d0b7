import { createHmac } from "node:crypto";
import { expect, test } from "@playwright/test";
import { query } from "./database";
import { signInAsStaff } from "./sign-in";

// A publisher's conversion settings on its account page: crediting orders without proof (off by
// default, said in words) and a
// plausibility limit (checked by the form first), and an order-signing secret shown once, which
// then verifies an order token at the conversion route.
test("conversion settings: credit orders without proof, a limit, and a signing secret shown once that verifies a token", async ({ page, request }) => {
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Accounts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "City Pharmacy" }).click();
  const conversions = page.getByRole("region", { name: "Account City Pharmacy" }).getByRole("region", { name: "Conversions" });
  const settings = conversions.getByRole("form", { name: "Conversion settings" });
  try {
    await expect(conversions.getByTestId("credit-unverified-state")).toContainText(
      "Credit orders without proof: off — orders sent from browsers without an order token are reported as unverified and move no figures",
    );
    await expect(settings.getByLabel("Credit orders without proof")).not.toBeChecked();
    await settings.getByLabel("Credit orders without proof").check();
    await settings.getByLabel(/^Largest order total/).fill("-1");
    await settings.getByRole("button", { name: "Save conversion settings" }).click();
    await expect(conversions.getByRole("alert")).toHaveText("Largest order total must be above 0");
    await settings.getByLabel(/^Largest order total/).fill("2500");
    await settings.getByRole("button", { name: "Save conversion settings" }).click();
    await expect(conversions.getByRole("status")).toContainText("every order is credited, unverified ones shown apart");
    await expect(conversions.getByTestId("credit-unverified-state")).toContainText("Credit orders without proof: on");
    const [stored] = await query<{ credits: boolean; total: string; quantity: number | null }>(
      "SELECT credit_unverified_conversions AS credits, max_order_total_micros::text AS total, max_line_quantity AS quantity FROM accounts WHERE id = 'pub_city_pharmacy'",
    );
    expect(stored).toEqual({ credits: true, total: "2500000000", quantity: null });

    // A new secret, shown once.
    await expect(conversions.getByText("No signing secret yet:")).toBeVisible();
    await conversions.getByRole("button", { name: "Create secret" }).click();
    const secret = (await conversions.getByTestId("new-signing-secret").textContent())!;
    expect(secret).toMatch(/^tss_[A-Za-z0-9_-]{43}$/);
    await expect(conversions.getByRole("list", { name: "Signing secrets" })).toContainText(`${secret.slice(0, 10)}…`);
    await page.screenshot({ path: "test-results/e2e/screens/dashboard-conversion-settings.png", fullPage: true });

    // It verifies an order token at the conversion route, as the publisher's server would sign one.
    const orderId = `e2e-${Date.now()}`;
    const order = {
      publisher_id: "pub_city_pharmacy",
      user_id: "e2e-shopper",
      session_id: "e2e-session",
      order_id: orderId,
      created_at: new Date().toISOString(),
      channel: "web",
      email_hashed: "a".repeat(64),
      items: [{ sku: "BS-PASTE-100", quantity: 2, price: 6.5, promotional_price: 6.5 }],
    };
    const token = createHmac("sha256", secret).update(`${orderId}\n13000000`).digest("hex");
    const answer = await request.post("/v1/beacon/conversion", { data: { ...order, order_token: token } });
    expect(answer.status()).toBe(202);
    expect(await answer.json()).toMatchObject({ verified: true });

    // After a reload the secret is gone from the page for good; the list keeps its prefix.
    await page.reload();
    await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "City Pharmacy" }).click();
    await expect(conversions.getByRole("list", { name: "Signing secrets" })).toContainText("current");
    expect(await page.content()).not.toContain(secret);

    // Rotating shows the new one once and keeps the old one verifying for its grace period.
    page.once("dialog", (dialog) => void dialog.accept());
    await conversions.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = (await conversions.getByTestId("new-signing-secret").textContent())!;
    expect(rotated).toMatch(/^tss_/);
    expect(rotated).not.toBe(secret);
    await expect(conversions.getByRole("list", { name: "Signing secrets" }).getByRole("listitem")).toHaveCount(2);
    await expect(conversions.getByRole("list", { name: "Signing secrets" })).toContainText("replaced: verifies tokens until");
  } finally {
    await query(
      "UPDATE accounts SET credit_unverified_conversions = false, max_order_total_micros = NULL, max_line_quantity = NULL WHERE id = 'pub_city_pharmacy'",
    );
    await query("DELETE FROM conversion_signing_secrets WHERE publisher_id = 'pub_city_pharmacy'");
  }
});
