// The README's "First steps", as a newcomer follows them on a fresh install: sign in with the staff
// login the seed prints, make an API key for an advertiser and read a report with it, invite a
// user of that advertiser, join as them, and download their campaign list as XLSX: a file a
// reader Tally did not write (exceljs) opens, holding the campaigns the page shows, and no other
// advertiser's.
import { expect, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { signInAsStaff } from "./sign-in";

test("a newcomer makes a key, invites a user of an advertiser, joins as them and downloads their campaign list as XLSX", async ({ page, browser, request }) => {
  // 1. The staff login, then an API key for Acme Coffee that reads the report routes.
  await signInAsStaff(page);
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Acme Coffee (advertiser)" });
  await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill("First steps");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key").textContent())!.trim();
  const campaigns = await request.get("/campaign/v2", { headers: { Authorization: `Bearer ${key}` } });
  expect(campaigns.status()).toBe(200);
  const viaKey = ((await campaigns.json()) as { data: { name: string }[] }).data.map((c) => c.name).sort();
  expect(viaKey.length).toBeGreaterThan(0);

  // 2. Invite a user of Acme Coffee: the link is shown to copy (no SMTP_URL here).
  await page.getByRole("link", { name: "Accounts" }).click();
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Acme Coffee" }).click();
  const team = page.getByRole("region", { name: "Account Acme Coffee" }).getByRole("region", { name: "Team" });
  const form = team.getByRole("form", { name: "Invite a user" });
  const email = `first-steps-${Date.now()}@acme.example`;
  await form.getByLabel("E-mail to invite").fill(email);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Invite" }).click();
  const link = (await team.getByTestId("invitation-link").textContent())!.trim();

  // 3. The invited person, in a browser of their own, joins and lands on their own overview.
  const theirs = await browser.newContext({ acceptDownloads: true });
  const them = await theirs.newPage();
  await them.goto(link);
  const accept = them.getByRole("form", { name: "Accept the invitation" });
  await accept.getByLabel("Name").fill("Ana Newcomer");
  await accept.getByLabel("Password (10 characters or more)").fill("first steps password");
  await accept.getByLabel("Password again").fill("first steps password");
  await accept.getByRole("button", { name: "Join and sign in" }).click();
  await expect(them.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

  // 4. Their campaign list, downloaded as XLSX, holds what the page shows: Acme's campaigns only.
  await them.getByRole("link", { name: "Campaigns", exact: true }).click();
  await expect(them.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
  const table = them.getByRole("table", { name: /^Campaigns from/ });
  await expect(table.locator("tbody tr").first()).toBeVisible();
  const shown = (await table.locator("tbody tr th, tbody tr td:first-child").allTextContents()).map((name) => name.trim()).sort();
  expect(shown).toEqual(viaKey);
  const [download] = await Promise.all([them.waitForEvent("download"), them.getByRole("button", { name: "Download XLSX" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^campaigns-.*\.xlsx$/);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await download.path())!);
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1);
  expect(header[0]).toBe("Campaign");
  expect(header).toEqual(expect.arrayContaining(["Impressions", "CTR", "Spend"]));
  const names: string[] = [];
  sheet.eachRow((row, number) => {
    const first = row.getCell(1).value;
    if (number > 1 && typeof first === "string" && first !== "Total") names.push(first);
  });
  expect(names.sort()).toEqual(viaKey);
  await theirs.close();
});
