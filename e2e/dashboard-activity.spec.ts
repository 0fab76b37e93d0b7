// The activity log as a person meets it: a campaign's daily budget and bid changed in its form
// show on the Activity page and on the campaign's page as before → after, and the page's filters
// live in its address, so a reload keeps them.
import { expect, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { query } from "./database";
import { signInAsStaff } from "./sign-in";

test("a campaign's budget and bid changes are listed with before → after, and the filters survive a reload", async ({ page }) => {
  const name = `Acme: activity beans ${Date.now()}`;
  await signInAsStaff(page);
  await page.goto("/dashboard/campaigns/new");
  await expect(page.getByRole("heading", { level: 1, name: "New campaign" })).toBeVisible();
  await page.getByLabel("Advertiser").selectOption({ label: "Acme Coffee" });
  const form = page.getByRole("form", { name: "New campaign" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Bid per click").fill("0.35");
  await form.getByLabel("Daily budget (optional)").fill("50");
  await form.getByLabel("Demo Market", { exact: true }).check();
  await form.getByRole("button", { name: "Create campaign" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const campaignPath = new URL(page.url()).pathname;

  await page.getByRole("link", { name: "Edit" }).click();
  const edit = page.getByRole("form", { name: "Edit campaign" });
  await edit.getByLabel("Daily budget (optional)").fill("80");
  await edit.getByLabel("Bid per click").fill("0.5");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();

  // The campaign's page: its own entries, the change first.
  const own = page.getByRole("table", { name: "Campaign activity" });
  const changed = own.locator('tr[data-action="campaign.updated"]');
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText("Daily budget (USD): 50.00 → 80.00");
  await expect(changed).toContainText("Bid (USD): 0.35 → 0.50");
  await expect(changed).toContainText("staff@tally.local");
  await expect(changed).not.toContainText("Name:");
  await expect(own.locator('tr[data-action="campaign.created"]')).toHaveCount(1);

  // The Activity page, filtered by kind and text through its form: the filters go to the address.
  await page.getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await page.getByLabel("Kind of change").selectOption({ label: "Campaigns" });
  await page.getByLabel("Text").fill(name);
  await page.getByLabel("Who").fill("staff@tally");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/kind=campaign\./);
  await expect(page).toHaveURL(/who=staff%40tally/);
  const table = page.getByRole("table", { name: "Activity" });
  await expect(table.getByRole("row")).toHaveCount(3); // the header, the change and the creation
  await expect(table.locator('tr[data-action="campaign.updated"]')).toContainText("Daily budget (USD): 50.00 → 80.00");
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-activity.png", fullPage: true });

  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await expect(page.getByLabel("Kind of change")).toHaveValue("campaign.");
  await expect(page.getByLabel("Text")).toHaveValue(name);
  await expect(page.getByLabel("Who")).toHaveValue("staff@tally");
  await expect(table.getByRole("row")).toHaveCount(3);
  await expect(table.locator('tr[data-action="campaign.updated"]')).toContainText("Bid (USD): 0.35 → 0.50");

  // The entries shown, as a file a reader Tally did not write (exceljs) opens: a row each, in the order shown.
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download XLSX" }).click()]);
  expect(file.suggestedFilename()).toBe("activity.xlsx");
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await file.path())!);
  const sheet = workbook.worksheets[0]!;
  expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(["When (UTC)", "Who", "What", "Subject", "Account", "Change"]);
  expect(sheet.actualRowCount).toBe(3);
  expect(String(sheet.getRow(2).getCell(6).value)).toContain("Daily budget (USD): 50.00 → 80.00");
  expect(sheet.getRow(2).getCell(1).value).toBeInstanceOf(Date);

  // Another kind of change leaves none of them; the stored entry is the one shown.
  await page.getByLabel("Kind of change").selectOption({ label: "API keys" });
  await expect(page).toHaveURL(/kind=api_key\./);
  await expect(page.getByText("No changes match.")).toBeVisible();
  const [entry] = await query<{ before: unknown; after: unknown; campaign_id: string }>(
    "SELECT before, after, campaign_id FROM activity_log WHERE action = 'campaign.updated' AND subject LIKE $1",
    [`%${name}%`],
  );
  expect(entry).toEqual({ before: { bid: 0.35, dailyBudget: 50 }, after: { bid: 0.5, dailyBudget: 80 }, campaign_id: campaignPath.split("/").at(-1) });
});
