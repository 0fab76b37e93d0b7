import { expect, test } from "@playwright/test";
import { query } from "./database";
import { signInAsStaff } from "./sign-in";

test("an account manager creates an advertiser, tops up its wallet after a confirmation and finds it in the ledger, and sets its daily budget; a publisher gets a site", async ({
  page,
}) => {
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Accounts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();

  await page.getByRole("button", { name: "New account" }).click();
  const form = page.getByRole("form", { name: "New account" });
  await form.getByLabel("Name").fill("Harbor Tea");
  await form.getByLabel("Seller id").fill("seller-7788");
  await form.getByLabel("Opening wallet").fill("-5");
  await form.getByRole("button", { name: "Create account" }).click();
  await expect(form.getByRole("alert")).toHaveText("Wallet cannot be negative");
  await form.getByLabel("Opening wallet").fill("250");
  await form.getByRole("button", { name: "Create account" }).click();

  const detail = page.getByRole("region", { name: "Account Harbor Tea" });
  await expect(detail.locator('[data-kpi="Wallet"] .kpi-value')).toHaveText("USD 250.00");
  // A top-up asks first, naming the account and the balance it will reach; cancelled, nothing moves.
  await detail.getByLabel("Top-up amount").fill("49.5");
  await detail.getByRole("button", { name: "Top up" }).click();
  const confirm = detail.getByRole("group", { name: "Confirm the top-up" });
  await expect(confirm).toContainText("Add USD 49.50 to Harbor Tea's wallet? Balance will be USD 299.50.");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
  await detail.getByRole("button", { name: "Top up" }).click();
  // Clicked twice in a row, the confirmation tops up once (one request id).
  await confirm.getByRole("button", { name: "Add USD 49.50" }).dblclick();
  await expect(detail.getByTestId("top-up-done")).toHaveText("Added USD 49.50 to Harbor Tea's wallet. The balance is now USD 299.50.");
  await expect(detail.locator('[data-kpi="Wallet"] .kpi-value')).toHaveText("USD 299.50");
  // The ledger: the top-up with who made it and the balance it left, newest first.
  const ledger = detail.getByRole("table", { name: /^Wallet ledger from/ });
  const topUp = ledger.getByRole("row").filter({ hasText: "Top-up" });
  await expect(topUp).toHaveCount(1);
  await expect(topUp).toContainText("staff@tally.local");
  await expect(topUp).toContainText("USD 49.50");
  await expect(topUp).toContainText("USD 299.50");
  await detail.getByLabel("Daily budget (empty for none)").fill("40");
  await detail.getByRole("button", { name: "Save budget" }).click();
  await expect(detail.locator('[data-kpi="Daily budget"] .kpi-value')).toHaveText("USD 40.00");
  const [stored] = await query<{ wallet: string; budget: string; seller_id: string }>(
    "SELECT wallet_balance_micros::text AS wallet, daily_budget_micros::text AS budget, seller_id FROM accounts WHERE name = 'Harbor Tea'",
  );
  expect(stored).toEqual({ wallet: "299500000", budget: "40000000", seller_id: "seller-7788" });
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-accounts.png", fullPage: true });

  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Corner Grocer" }).click();
  const grocer = page.getByRole("region", { name: "Account Corner Grocer" });
  await expect(grocer).toContainText("sells through Retail Network");
  await grocer.getByLabel("Site name").fill("Corner Grocer App");
  await grocer.getByRole("button", { name: "Add site" }).click();
  await expect(grocer.getByText("Corner Grocer App")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-accounts-390.png", fullPage: true });
});
