import { expect, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { eventually, query } from "./database";
import { signInAsStaff } from "./sign-in";

// The dashboard's whole path: an account manager sets up a new advertiser, its product, campaign
// and ad; a shopper sees the ad in the demo store, clicks it and buys; the campaign's numbers,
// chart and download follow.
test("from a new advertiser to its ad in the store, a click and an order, to the campaign's numbers and XLSX", async ({ page, browser }) => {
  test.setTimeout(150_000);
  await signInAsStaff(page);

  // The advertiser and its product.
  await page.getByRole("link", { name: "Accounts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();
  await page.getByRole("button", { name: "New account" }).click();
  const account = page.getByRole("form", { name: "New account" });
  await account.getByLabel("Name").fill("Lighthouse Tea");
  await account.getByLabel("Opening wallet").fill("500");
  await account.getByRole("button", { name: "Create account" }).click();
  const harbor = page.getByRole("region", { name: "Account Lighthouse Tea" });
  const product = harbor.getByRole("form", { name: "Add a product" });
  await product.getByLabel("SKU").fill("LIGHTHOUSE-GREEN-TEA");
  await product.getByLabel("Product name").fill("Lighthouse Green Tea 100 g");
  await product.getByLabel("Category").fill("tea");
  await product.getByLabel("Price").fill("12.50");
  await product.getByRole("button", { name: "Add product" }).click();
  await expect(harbor.getByRole("cell", { name: "LIGHTHOUSE-GREEN-TEA" })).toBeVisible();

  // Its campaign, with a bid that wins the store's sponsored slots, and its ad.
  await page.getByRole("link", { name: "Campaigns" }).click();
  await page.getByRole("link", { name: "New campaign" }).click();
  // The list's account picker and column chooser name advertisers too: the form's own field, once it is open.
  await expect(page.getByRole("heading", { level: 1, name: "New campaign" })).toBeVisible();
  await page.getByLabel("Advertiser").selectOption({ label: "Lighthouse Tea" });
  const campaign = page.getByRole("form", { name: "New campaign" });
  await campaign.getByLabel("Name").fill("Lighthouse: green tea");
  await campaign.getByLabel("Bid per click").fill("3");
  await campaign.getByLabel("Demo Market", { exact: true }).check();
  await campaign.getByLabel(/Lighthouse Green Tea 100 g/).check();
  await campaign.getByRole("button", { name: "Create campaign" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Lighthouse: green tea" })).toBeVisible();
  await page.getByRole("button", { name: "New ad" }).click();
  const ad = page.getByRole("form", { name: "New ad" });
  await ad.getByLabel("Ad name", { exact: true }).fill("Green tea card");
  await ad.getByLabel(/Lighthouse Green Tea 100 g/).check();
  await ad.getByRole("button", { name: "Create ad" }).click();
  await expect(page.getByRole("cell", { name: "Green tea card", exact: true })).toBeVisible();
  const [{ id: adId, campaign_id: campaignId }] = (await query<{ id: string; campaign_id: string }>(
    "SELECT id, campaign_id FROM ads WHERE name = 'Green tea card'",
  )) as [{ id: string; campaign_id: string }];

  // A shopper (another browser context: no dashboard session) sees it, clicks it and buys.
  const shopper = await (await browser.newContext()).newPage();
  await shopper.goto("/demo");
  const card = shopper.locator(`[data-testid="sponsored-ad"][data-ad-id="${adId}"]`);
  await expect(card).toBeVisible();
  await card.click();
  await shopper.waitForURL(/\/demo\/product\/LIGHTHOUSE-GREEN-TEA/);
  await shopper.getByLabel("E-mail").fill("tea.lover@example.com");
  await shopper.getByRole("button", { name: "Buy now" }).click();
  const orderId = (await shopper.getByTestId("order-id").textContent())!;
  await eventually(
    () => query("SELECT 1 FROM attributions WHERE order_id = $1 AND ad_id = $2", [orderId, adId]),
    (rows) => rows.length === 1,
    60_000,
  );

  // The campaign page now shows the impression, the click and the order, on today's point of the chart.
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Lighthouse: green tea" })).toBeVisible();
  await expect(page.locator('[data-kpi="Clicks"] .kpi-value')).toHaveText("1");
  await expect(page.locator('[data-kpi="Conversions"] .kpi-value')).toHaveText("1");
  await expect(page.locator('[data-kpi="Sales revenue"] .kpi-value')).toHaveText("USD 12.50");
  await expect(page.locator('[data-kpi="Spend"] .kpi-value')).toHaveText("USD 3.00");
  // Bought after a click: click-through, and the one click converted.
  await expect(page.locator('[data-kpi="Click sales revenue"] .kpi-value')).toHaveText("USD 12.50");
  await expect(page.locator('[data-kpi="View sales revenue"] .kpi-value')).toHaveText("USD 0.00");
  await expect(page.locator('[data-kpi="Click conversion rate"] .kpi-value')).toHaveText("100.00%");
  // The shopper's first purchase of the brand at the demo store.
  await expect(page.locator('[data-kpi="New-to-brand conversions"] .kpi-value')).toHaveText("1");
  await expect(page.getByRole("figure", { name: "Click- and view-through sales by day" }).locator(".recharts-bar-rectangle").first()).toBeAttached();
  await expect(page.getByRole("figure", { name: "Impressions and clicks by day" }).locator(".recharts-line-curve")).toHaveCount(2);
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-flow-campaign.png", fullPage: true });

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download XLSX" }).click()]);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await download.path())!);
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
  const today = new Date().toISOString().slice(0, 10);
  // The header, a row a day, then the totals row.
  expect(sheet.getRow(sheet.rowCount).getCell(1).value).toBe("Total");
  const rows = Array.from({ length: sheet.rowCount - 2 }, (_, i) =>
    Object.fromEntries(header.map((h, c) => [h, (sheet.getRow(i + 2).values as unknown[])[c + 1]])),
  );
  const todays = rows.find((r) => (r.Day as Date).toISOString().slice(0, 10) === today);
  expect(todays).toMatchObject({ Clicks: 1, Conversions: 1, "Sales revenue": 12.5, Spend: 3, "Click conversions": 1, "Click sales revenue": 12.5 });
  expect(rows.filter((r) => r !== todays).every((r) => r.Clicks === 0)).toBe(true);

  // Paused, it leaves the store's slots to the other campaigns.
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toBeVisible();
  const [{ status }] = (await query<{ status: string }>("SELECT status::text FROM campaigns WHERE id = $1", [campaignId])) as [{ status: string }];
  expect(status).toBe("paused");
});
