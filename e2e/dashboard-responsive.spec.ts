import { expect, test } from "@playwright/test";
import { signInAsStaff } from "./sign-in";

const SCREENS = [
  ["/dashboard", "Overview"],
  ["/dashboard/campaigns", "Campaigns"],
  ["/dashboard/campaigns/cmp_acme_sponsored", "Acme Coffee: sponsored products"],
  ["/dashboard/campaigns/new", "New campaign"],
  ["/dashboard/accounts", "Accounts"],
  ["/dashboard/api-keys", "API keys"],
  ["/dashboard/exports", "Exports"],
  ["/dashboard/invalid-traffic", "Invalid traffic"],
  ["/dashboard/activity", "Activity"],
  ["/dashboard/settings", "Settings"],
] as const;

test("signing in and moving around work from the keyboard alone", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByLabel("E-mail").focus();
  await page.keyboard.type("staff@tally.local");
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password")).toBeFocused();
  await page.keyboard.type("tally-demo-staff");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  // Tab from the top of the page reaches the navigation's Campaigns link; Enter follows it.
  await page.locator("body").focus();
  for (let i = 0; i < 10 && !(await page.getByRole("link", { name: "Campaigns" }).evaluate((el) => el === document.activeElement)); i += 1) {
    await page.keyboard.press("Tab");
  }
  await expect(page.getByRole("link", { name: "Campaigns" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
});

test("every dashboard screen fits a 390 px wide phone without sideways scrolling", async ({ page }) => {
  await signInAsStaff(page);
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [path, heading] of SCREENS) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await page.waitForLoadState("networkidle");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest(".table-scroll"))
        .slice(0, 5)
        .map((el) => `${el.tagName}.${el.className}`),
    );
    expect({ path, overflow, wide }).toEqual({ path, overflow: 0, wide: [] });
    await page.screenshot({ path: `test-results/e2e/screens/390${path.replaceAll("/", "-")}.png`, fullPage: true });
  }
});
