// An account's time zone as staff meet it: set on the account's page, shown with its offset, a bad
// name refused beside the field, the zone kept for the reports from a start in the future, and
// the change listed in the activity log as a sentence; a viewer reads it without the form.
import { expect, test } from "@playwright/test";
import { query } from "./database";
import { signIn, signInAsStaff } from "./sign-in";

test("staff set an account's time zone on its page, see it with its offset, and find the change in the activity log", async ({ page }) => {
  const name = `Zone Tea ${Date.now()}`;
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Accounts" }).click();
  await page.getByRole("button", { name: "New account" }).click();
  const form = page.getByRole("form", { name: "New account" });
  await form.getByLabel("Name").fill(name);
  await form.getByRole("button", { name: "Create account" }).click();

  const detail = page.getByRole("region", { name: `Account ${name}` });
  const zone = detail.getByRole("region", { name: "Time zone", exact: true });
  await expect(zone.getByTestId("account-time-zone")).toHaveText("UTC, UTC+00:00");
  const picker = zone.getByRole("combobox", { name: "Time zone (type to search, such as Sao_Paulo)", exact: true });
  await expect(picker).toHaveValue("UTC");
  // The choices come from the server, each with its offset now.
  await expect(zone.locator('datalist option[value="America/Sao_Paulo"]')).toHaveAttribute("label", "America/Sao_Paulo, UTC−03:00");

  // A name that is no zone is refused beside the field, and nothing changes.
  await picker.fill("EST");
  await zone.getByRole("button", { name: "Save time zone" }).click();
  await expect(zone.locator("#time-zone-error")).toHaveText("Time zone is not a time zone: name one as Area/City, such as America/Sao_Paulo, or UTC");
  await expect(picker).toHaveAttribute("aria-invalid", "true");
  await expect(zone.getByTestId("account-time-zone")).toHaveText("UTC, UTC+00:00");

  await picker.fill("America/Sao_Paulo");
  await zone.getByRole("button", { name: "Save time zone" }).click();
  await expect(zone.getByTestId("account-time-zone")).toHaveText("America/Sao_Paulo, UTC−03:00");
  await expect(zone.getByRole("status")).toHaveText(
    /^Saved: reports count days in America\/Sao_Paulo from (\d{4}-\d\d-\d\d 00:00 UTC|\d{4}-\d\d-\d\d) on; days before then stay UTC days until they are filled in\.$/,
  );
  await expect(zone.locator("#time-zone-error")).toHaveCount(0);
  const [stored] = await query<{ time_zone: string; kept: boolean }>(
    "SELECT a.time_zone, z.zone IS NOT NULL AS kept FROM accounts a LEFT JOIN report_zones z ON z.zone = a.time_zone WHERE a.name = $1",
    [name],
  );
  expect(stored).toEqual({ time_zone: "America/Sao_Paulo", kept: true });
  // A reload reads it back from the server.
  await page.reload();
  await expect(page.getByRole("region", { name: "Time zone", exact: true }).getByTestId("account-time-zone")).toHaveText("America/Sao_Paulo, UTC−03:00");

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await page.getByLabel("Text").fill(name);
  await page.getByRole("button", { name: "Filter" }).click();
  const row = page.getByRole("table", { name: "Activity" }).locator('tr[data-action="account.time_zone.set"]');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(`Demo Account Manager changed ${name}'s time zone from UTC to America/Sao_Paulo`);
  await expect(row).toContainText("Time zone: UTC → America/Sao_Paulo");
  await expect(row).toContainText("staff@tally.local");
});

test("an account's viewer reads its time zone with its offset, without the form", async ({ page }) => {
  // A viewer of Acme Coffee, signing in with the demo advertiser's password (its hash copied).
  await query(
    `INSERT INTO users (id, email, name, password_hash, role, account_id, member_role)
     SELECT 'usr_zone_viewer', 'zone-viewer@tally.local', 'Zone Viewer', password_hash, role, account_id, 'viewer' FROM users WHERE email = 'acme@tally.local'
     ON CONFLICT (id) DO NOTHING`,
  );
  await signIn(page, "zone-viewer@tally.local", "tally-demo-advertiser");
  await page.getByRole("link", { name: "Accounts" }).click();
  const account = page.getByRole("region", { name: "Account Acme Coffee" });
  const zone = account.getByRole("region", { name: "Time zone", exact: true });
  await expect(zone.getByTestId("account-time-zone")).toHaveText(/^(UTC|[A-Za-z_]+\/[A-Za-z_/]+), UTC[+−]\d\d:\d\d$/);
  await expect(account.getByText("You can read this account but not change it")).toBeVisible();
  await expect(zone.getByRole("form")).toHaveCount(0);
  await expect(zone.getByRole("combobox")).toHaveCount(0);
  await expect(zone.getByRole("button", { name: "Save time zone" })).toHaveCount(0);
});
