// The overview, the campaign list and the campaign page as views in the address: figure cards
// against the period before, sorted tables, their CSV and XLSX files, the keyboard and a phone.
import { expect, type Locator, type Page, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { query } from "./database";
import { readCsv, shownTable } from "./files";
import { signInAsStaff } from "./sign-in";

// Days long past, where no other spec's traffic lands: a week and the week before it.
const CURRENT = { from: "2025-03-08", to: "2025-03-14" };
const PREVIOUS = { from: "2025-03-01", to: "2025-03-07" };
const ALL_FILTERED = { from: "2025-02-01", to: "2025-02-02" };
const CAMPAIGN = "cmp_northwind_display";
const ADVERTISER = "adv_northwind";
const PUBLISHER = "pub_demo_market";

type Seeded = { day: string; ad: string; impressions: number; clicks: number; spend: number; bots?: number };
// Northwind's banners: 1,000 impressions and 20 clicks the week before (on its first day, so the
// figures ran in all of it), 1,500 and 45 this week.
const SEEDED: Seeded[] = [
  { day: "2025-03-01", ad: "ad_northwind_leaderboard", impressions: 1000, clicks: 20, spend: 6 },
  { day: "2025-03-09", ad: "ad_northwind_leaderboard", impressions: 600, clicks: 15, spend: 3.6 },
  { day: "2025-03-12", ad: "ad_northwind_leaderboard", impressions: 500, clicks: 10, spend: 3 },
  { day: "2025-03-12", ad: "ad_northwind_rectangle", impressions: 400, clicks: 20, spend: 2.4 },
  { day: "2025-02-01", ad: "ad_northwind_rectangle", impressions: 0, clicks: 0, spend: 0, bots: 7 },
];

async function seed() {
  for (const row of SEEDED) {
    const values = [row.day, ADVERTISER, CAMPAIGN, row.impressions, row.clicks, Math.round(row.spend * 1e6), row.bots ?? 0];
    await query(
      // publisher_id '' holds the ad's figures over every publisher (what staff see).
      `INSERT INTO daily_ad_totals (day, advertiser_id, campaign_id, ad_id, publisher_id, impressions, clicks, spend_micros, bot_events)
       VALUES ($1, $2, $3, $8, '', $4, $5, $6, $7)
       ON CONFLICT (zone, day, advertiser_id, campaign_id, ad_id, publisher_id) DO UPDATE SET impressions = $4, clicks = $5, spend_micros = $6, bot_events = $7`,
      [...values, row.ad],
    );
  }
  // The campaign's rows are its ads' summed per day.
  await query(`DELETE FROM daily_campaign_totals WHERE campaign_id = $1 AND day BETWEEN '2025-01-01' AND '2025-12-31'`, [CAMPAIGN]);
  await query(
    `INSERT INTO daily_campaign_totals (day, publisher_id, advertiser_id, campaign_id, impressions, clicks, spend_micros, bot_events)
     SELECT day, $2, advertiser_id, campaign_id, sum(impressions), sum(clicks), sum(spend_micros), sum(bot_events)
       FROM daily_ad_totals WHERE campaign_id = $1 AND publisher_id = '' AND day BETWEEN '2025-01-01' AND '2025-12-31' GROUP BY day, advertiser_id, campaign_id`,
    [CAMPAIGN, PUBLISHER],
  );
}

const inRange = (rows: Seeded[], range: { from: string; to: string }) => rows.filter((r) => r.day >= range.from && r.day <= range.to);
const sum = (rows: Seeded[], field: "impressions" | "clicks" | "spend") => rows.reduce((total, r) => total + r[field], 0);
const signed = (change: number) => `${change > 0 ? "+" : change < 0 ? "−" : ""}${(Math.abs(change) * 100).toFixed(2)}%`;
const view = (path: string, extra = "") => `${path}?from=${CURRENT.from}&to=${CURRENT.to}&account=${ADVERTISER}${extra}`;

test.beforeAll(seed);

/**
 * The table's CSV and XLSX downloads hold its labels and, in the order shown, its rows (the first
 * column's values), then the totals; `beside` names a column the files carry after a shown one.
 */
async function expectDownloadsMatch(page: Page, tools: Locator, table: Locator, name: RegExp, beside: Record<string, string> = {}) {
  const shown = await shownTable(table);
  const labels = shown.labels.flatMap((label) => (beside[label] ? [label, beside[label]] : [label]));
  expect(shown.rows.length).toBeGreaterThan(0);
  const firstColumn = shown.rows.map((cells) => cells[0]);
  const hasTotals = (await table.locator("tfoot tr").count()) > 0;

  const [csv] = await Promise.all([page.waitForEvent("download"), tools.getByRole("button", { name: "Download CSV" }).click()]);
  expect(csv.suggestedFilename()).toMatch(name);
  expect(csv.suggestedFilename()).toMatch(/\.csv$/);
  const lines = (await readCsv((await csv.path())!)).filter((line) => line.some((cell) => cell !== ""));
  expect(lines[0]).toEqual(labels);
  expect(lines.slice(1, 1 + shown.rows.length).map((line) => line[0])).toEqual(firstColumn);
  expect(lines.length).toBe(1 + shown.rows.length + (hasTotals ? 1 : 0));

  const [xlsx] = await Promise.all([page.waitForEvent("download"), tools.getByRole("button", { name: "Download XLSX" }).click()]);
  expect(xlsx.suggestedFilename()).toMatch(name);
  expect(xlsx.suggestedFilename()).toMatch(/\.xlsx$/);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await xlsx.path())!);
  const sheet = workbook.worksheets[0]!;
  expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(labels);
  const cellText = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
  const firstCells = Array.from({ length: shown.rows.length }, (_, i) => cellText(sheet.getRow(i + 2).getCell(1).value));
  expect(firstCells).toEqual(firstColumn);
  expect(sheet.actualRowCount).toBe(1 + shown.rows.length + (hasTotals ? 1 : 0));
  return { csv: lines, sheet, shown };
}

test("a figure card shows the range's value and its change against the week before, computed by hand", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(view("/dashboard"));
  const current = inRange(SEEDED, CURRENT);
  const previous = inRange(SEEDED, PREVIOUS);
  const impressions = page.locator('[data-kpi="Impressions"]');
  await expect(impressions.locator(".kpi-value")).toHaveText(new Intl.NumberFormat("en").format(sum(current, "impressions")));
  const impressionsChange = (sum(current, "impressions") - sum(previous, "impressions")) / sum(previous, "impressions");
  await expect(impressions.locator(".kpi-change")).toHaveAttribute("data-change", signed(impressionsChange));
  await expect(page.getByTestId("compared-with")).toContainText(`the period before, ${PREVIOUS.from} – ${PREVIOUS.to}`);
  await expect(impressions.locator(".kpi-change .visually-hidden")).toHaveText(`up ${signed(impressionsChange).slice(1)}, better`);
  // A ratio changes relative to itself: CTR 3% against 2% is +50%, not one point.
  const ctrChange = sum(current, "clicks") / sum(current, "impressions") / (sum(previous, "clicks") / sum(previous, "impressions")) - 1;
  await expect(page.locator('[data-kpi="CTR"] .kpi-change')).toHaveAttribute("data-change", signed(ctrChange));
  const [{ currency }] = (await query<{ currency: string }>("SELECT trim(currency) AS currency FROM accounts WHERE id = $1", [ADVERTISER])) as [
    { currency: string },
  ];
  await expect(page.locator('[data-kpi="Spend"] .kpi-value')).toHaveText(`${currency} ${sum(current, "spend").toFixed(2)}`);
  // Nothing the week before: no change to tell.
  await expect(page.locator('[data-kpi="Conversions"] .kpi-change')).toHaveAttribute("data-change", "—");

  // The impressions chart answers a pointer with the day's figures.
  const chart = page.getByRole("figure", { name: "Impressions and clicks by day" });
  await chart.scrollIntoViewIfNeeded();
  const plot = chart.locator(".recharts-wrapper > svg").first();
  const box = (await plot.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await page.mouse.move(box.x + box.width * 0.62, box.y + box.height / 2);
  await expect(chart.locator(".recharts-tooltip-wrapper")).toContainText("Impressions");
  // The week before, dashed, on demand.
  await page.getByLabel("Draw the period before (dashed)").check();
  await expect(chart.locator(".recharts-line-curve")).toHaveCount(4);
});

test("a view opens from its address with its range, account and sort, and the back button steps back", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(view("/dashboard", "&sort=-impressions_total"));
  await expect(page.getByLabel("From", { exact: true })).toHaveValue(CURRENT.from);
  await expect(page.getByLabel("To", { exact: true })).toHaveValue(CURRENT.to);
  await expect(page.getByLabel("Account")).toHaveValue(ADVERTISER);
  const table = page.getByRole("table", { name: /Figures by day/ });
  const header = table.getByRole("columnheader", { name: /Impressions/ });
  await expect(header).toHaveAttribute("aria-sort", "descending");
  await expect(header).toContainText("▼");
  await expect(table.locator("tbody tr").first().locator("td").first()).toHaveText("2025-03-12");

  await page.getByRole("button", { name: "Last 7 days" }).click();
  await expect(page).not.toHaveURL(new RegExp(`from=${CURRENT.from}`));
  await page.goBack();
  await expect(page.getByLabel("From", { exact: true })).toHaveValue(CURRENT.from);
  await expect(header).toHaveAttribute("aria-sort", "descending");

  // An address Tally cannot read falls back to the default view rather than failing.
  await page.goto("/dashboard?from=2025-02-30&to=nope&sort=-password&account=adv_unknown");
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(page.getByRole("table", { name: /Figures by day/ }).getByRole("columnheader", { name: /Day/ })).toHaveAttribute("aria-sort", "ascending");
  // Next.js's route announcer is an empty alert: only one with words would be a problem.
  await expect(page.getByRole("alert").filter({ hasText: /./ })).toHaveCount(0);
});

test("a saved view is named in the header and opens with its range, account and sort", async ({ page }) => {
  await signInAsStaff(page);
  const address = view("/dashboard", "&sort=-impressions_total");
  await page.goto(address);
  const menu = page.locator(".saved-views");
  const menuButton = menu.getByRole("button", { name: "Saved views" });
  await menuButton.click();
  // Escape closes the menu and gives the focus back to its button.
  await menu.getByLabel("Save this view as").focus();
  await page.keyboard.press("Escape");
  await expect(menu.getByLabel("Save this view as")).toBeHidden();
  await expect(menuButton).toBeFocused();
  await expect(menuButton).toHaveAttribute("aria-expanded", "false");
  await page.keyboard.press("Enter");
  await menu.getByLabel("Save this view as").fill("Northwind, week of 8 March");
  await menu.getByRole("button", { name: "Save view" }).click();
  await expect(menu.getByRole("status")).toHaveText("Saved “Northwind, week of 8 March”.");
  const stored = await query<{ path: string }>("SELECT path FROM saved_views WHERE name = 'Northwind, week of 8 March'");
  expect(stored).toEqual([{ path: address }]);
  // A click elsewhere closes the menu.
  await page.getByRole("heading", { level: 1, name: "Overview" }).click();
  await expect(menu.getByLabel("Save this view as")).toBeHidden();

  // Elsewhere, with another range: the saved view brings all of it back.
  await page.goto("/dashboard/campaigns");
  await menuButton.click();
  await menu.getByRole("link", { name: "Northwind, week of 8 March" }).click();
  await expect(page).toHaveURL(address);
  await expect(page.getByLabel("From", { exact: true })).toHaveValue(CURRENT.from);
  await expect(page.getByLabel("Account")).toHaveValue(ADVERTISER);
  await expect(page.getByRole("table", { name: /Figures by day/ }).getByRole("columnheader", { name: /Impressions/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );

  await menuButton.click();
  await menu.getByRole("button", { name: "Remove the view Northwind, week of 8 March" }).click();
  await expect(menu.getByRole("link", { name: "Northwind, week of 8 March" })).toHaveCount(0);
  expect(await query("SELECT 1 FROM saved_views WHERE name = 'Northwind, week of 8 March'")).toHaveLength(0);

  // The open menu stays inside the window wherever the header wraps it.
  await page.getByRole("heading", { level: 1, name: "Overview" }).click();
  await expect(menuButton).toHaveAttribute("aria-expanded", "false");
  for (const width of [390, 900, 1440]) {
    await page.setViewportSize({ width, height: 800 });
    await menuButton.click();
    const panel = await menu.locator(".saved-views-panel").boundingBox();
    expect(panel!.x, `at ${width} px`).toBeGreaterThanOrEqual(0);
    expect(panel!.x + panel!.width, `at ${width} px`).toBeLessThanOrEqual(width);
    expect(panel!.y + panel!.height, `at ${width} px`).toBeLessThanOrEqual(800);
    await page.screenshot({ path: `test-results/e2e/screens/saved-views-${width}.png` });
    await page.keyboard.press("Escape");
  }
});

test("each table's CSV and XLSX hold the rows shown, in the order shown", async ({ page }) => {
  await signInAsStaff(page);
  // The overview's daily table, by clicks, most first.
  await page.goto(view("/dashboard", "&sort=-clicks_total"));
  const daily = page.locator(".data-table").filter({ has: page.getByRole("table", { name: /Figures by day/ }) });
  await expect(daily.locator("tbody tr")).toHaveCount(7);
  const overview = await expectDownloadsMatch(page, daily, daily.getByRole("table"), /^overview-2025-03-08-2025-03-14\./);
  expect(overview.csv[1]![0]).toBe("2025-03-12");
  const clicksAt = overview.shown.labels.indexOf("Clicks");
  expect(overview.csv.at(-1)![clicksAt]).toBe(String(sum(inRange(SEEDED, CURRENT), "clicks")));

  // The campaign list.
  await page.goto(view("/dashboard/campaigns", "&sort=name"));
  const campaigns = page.locator(".data-table");
  await expect(campaigns.getByRole("link", { name: "Northwind: summer banners" })).toBeVisible();
  // The bid's model, which the table writes in the bid's cell, is a column of its own in the files.
  const list = await expectDownloadsMatch(page, campaigns, campaigns.getByRole("table"), /^campaigns-2025-03-08-2025-03-14\./, { Bid: "Bid model" });
  const northwind = list.csv.find((line) => line[0] === "Northwind: summer banners")!;
  const bidAt = list.csv[0]!.indexOf("Bid");
  expect(northwind.slice(bidAt, bidAt + 2)).toEqual([expect.stringMatching(/^\d+(\.\d+)?$/), "CPM"]);

  // The campaign page's ads, with a column more than by default.
  await page.goto(`/dashboard/campaigns/${CAMPAIGN}?from=${CURRENT.from}&to=${CURRENT.to}&sort=-clicks_total`);
  const ads = page.locator(".data-table").filter({ has: page.getByRole("table", { name: "Ads of Northwind: summer banners" }) });
  await ads.locator("summary").click();
  // The chooser writes the address, and the box follows it once the page has read it back.
  // Every metric is offered there: "Conversions" alone, not the click, view or halo ones.
  await ads.getByRole("checkbox", { name: "Conversions", exact: true }).click();
  await expect(ads.getByRole("checkbox", { name: "Conversions", exact: true })).toBeChecked();
  await expect(page).toHaveURL(/cols=/);
  await expect(ads.getByRole("columnheader", { name: /^Conversions/ })).toBeVisible();
  const files = await expectDownloadsMatch(page, ads, ads.getByRole("table"), /^ads-2025-03-08-2025-03-14\./);
  expect(files.csv[0]).toContain("Conversions");
  expect(files.csv[1]![0]).toBe("Summer leaderboard"); // 25 clicks against the rectangle's 20: sorted as shown
});

test("the keyboard sorts a table and reaches its downloads; a phone scrolls the table, not the page", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(view("/dashboard"));
  const table = page.getByRole("table", { name: /Figures by day/ });
  const clicks = table.getByRole("button", { name: /Clicks/ });
  await clicks.focus();
  await page.keyboard.press("Enter");
  await expect(table.getByRole("columnheader", { name: /Clicks/ })).toHaveAttribute("aria-sort", "descending");
  await expect(page).toHaveURL(/sort=-clicks_total/);
  await page.keyboard.press("Enter");
  await expect(table.getByRole("columnheader", { name: /Clicks/ })).toHaveAttribute("aria-sort", "ascending");

  const tools = page.locator(".data-table").filter({ has: table });
  await tools.locator("summary").focus();
  await page.keyboard.press("Tab");
  await expect(tools.getByRole("button", { name: "Download CSV" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(tools.getByRole("button", { name: "Download XLSX" })).toBeFocused();

  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/dashboard", "/dashboard/campaigns", `/dashboard/campaigns/${CAMPAIGN}`]) {
    await page.goto(view(path));
    await expect(page.locator("table.data").first()).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect({ path, overflow }).toEqual({ path, overflow: 0 });
  }
});

test("with every beacon filtered, the overview says so and leads to the invalid traffic page", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(`/dashboard?from=${ALL_FILTERED.from}&to=${ALL_FILTERED.to}&account=${ADVERTISER}`);
  const notice = page.getByTestId("all-filtered");
  await expect(notice).toContainText("7 beacons were filed as bots or other invalid traffic");
  await notice.getByRole("link").click();
  await expect(page.getByRole("heading", { level: 1, name: "Invalid traffic" })).toBeVisible();
  await expect(page.locator('[data-kpi="Bots"] .kpi-value')).toHaveText("7");
  // The same figures by day, as a table whose files hold its rows and totals.
  const byDay = page.locator(".data-table").filter({ has: page.getByRole("table", { name: /Filtered beacons by day/ }) });
  const files = await expectDownloadsMatch(page, byDay, byDay.getByRole("table"), /^invalid-traffic-/);
  expect(files.csv.at(-1)![0]).toBe("Total");
  expect(files.csv.at(-1)![files.shown.labels.indexOf("Bots")]).toBe("7");
  expect(files.csv.at(-1)![files.shown.labels.indexOf("Share filtered")]).toBe("1");
});
