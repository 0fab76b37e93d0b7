// The figures as a person reads them: a change coloured and said by whether it is better or worse
// for that figure (a cost going up is worse), a period before that the figures only partly ran in,
// the overview and its header on a phone, the charts' period before kept in the address, days
// typed as YYYY-MM-DD, and a publisher's own words.
import { expect, type Locator, type Page, test } from "@playwright/test";
import { query } from "./database";
import { signIn, signInAsStaff } from "./sign-in";

// Days long past, where no other spec's traffic lands.
const BEFORE = { from: "2024-06-01", to: "2024-06-03" };
const NOW = { from: "2024-06-04", to: "2024-06-06" };
// A period before that the figures ran in from its sixth day only: 5 of its 10 days.
const YOUNG = { from: "2024-07-11", to: "2024-07-20", started: "2024-07-06" };
const CAMPAIGN = "cmp_northwind_display";
const ADVERTISER = "adv_northwind";
const PUBLISHER = "pub_demo_market";
/** The overview of 30 days on a 390 px phone, seen by staff, with every group folded, in CSS pixels (docs/dashboard.md). */
const PHONE_HEIGHT_BUDGET = 3_000;

// eCPM 10.00 → 6.00 (down 40%, better); average CPC 0.50 → 1.00 (up 100%, worse); spend 10 → 12 (neither).
const SEEDED = [
  { day: "2024-06-01", impressions: 1000, clicks: 20, spend: 10 },
  { day: "2024-06-05", impressions: 2000, clicks: 12, spend: 12 },
  // CTR 2% → 3%: a ratio, compared even when the period before is partly before the start.
  { day: YOUNG.started, impressions: 500, clicks: 10, spend: 5 },
  { day: "2024-07-15", impressions: 1000, clicks: 30, spend: 9 },
];

test.beforeAll(async () => {
  for (const row of SEEDED) {
    const values = [row.day, ADVERTISER, CAMPAIGN, row.impressions, row.clicks, Math.round(row.spend * 1e6)];
    // publisher_id '' holds the ad's figures over every publisher (what staff see); the campaign's rows are its ads' summed.
    await query(
      `INSERT INTO daily_ad_totals (day, advertiser_id, campaign_id, ad_id, publisher_id, impressions, clicks, spend_micros)
       VALUES ($1, $2, $3, 'ad_northwind_leaderboard', '', $4, $5, $6)
       ON CONFLICT (zone, day, advertiser_id, campaign_id, ad_id, publisher_id) DO UPDATE SET impressions = $4, clicks = $5, spend_micros = $6`,
      values,
    );
    await query(
      `INSERT INTO daily_campaign_totals (day, publisher_id, advertiser_id, campaign_id, impressions, clicks, spend_micros)
       VALUES ($1, $7, $2, $3, $4, $5, $6)
       ON CONFLICT (zone, day, publisher_id, advertiser_id, campaign_id) DO UPDATE SET impressions = $4, clicks = $5, spend_micros = $6`,
      [...values, PUBLISHER],
    );
  }
});

const overview = (range: { from: string; to: string }, extra = "") => `/dashboard?from=${range.from}&to=${range.to}&account=${ADVERTISER}${extra}`;
const card = (page: Page, label: string) => page.getByRole("region", { name: "Totals" }).locator(`[data-kpi="${label}"]`);
const colourOf = (change: Locator) => change.locator("[aria-hidden]").evaluate((el) => getComputedStyle(el).color);
const GREEN = "rgb(21, 128, 61)";
const RED = "rgb(185, 28, 28)";

test("a cost going up reads red and worse, going down green and better; spend is neither", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(overview(NOW));
  // The period before is named once, above the cards, not on each.
  await expect(page.getByTestId("compared-with")).toContainText(`Changes against the period before, ${BEFORE.from} – ${BEFORE.to}`);
  await expect(page.getByRole("region", { name: "Totals" })).not.toContainText("vs ");
  await expect(page.getByTestId("partly-before-start")).toHaveCount(0);

  // The costs are folded; their summary says what is inside.
  const cost = page.locator('details[data-group="Cost"]');
  await expect(cost.locator("summary")).toContainText("1 better, 1 worse");
  await cost.locator("summary").click();
  const cpc = card(page, "Avg. CPC").locator(".kpi-change");
  await expect(card(page, "Avg. CPC").locator(".kpi-value")).toHaveText("USD 1.00");
  await expect(cpc).toHaveAttribute("data-change", "+100.00%");
  await expect(cpc).toHaveAttribute("data-verdict", "worse");
  await expect(cpc.locator(".visually-hidden")).toHaveText("up 100.00%, worse");
  expect(await colourOf(cpc)).toBe(RED);
  const ecpm = card(page, "eCPM").locator(".kpi-change");
  await expect(ecpm).toHaveAttribute("data-change", "−40.00%");
  await expect(ecpm.locator(".visually-hidden")).toHaveText("down 40.00%, better");
  expect(await colourOf(ecpm)).toBe(GREEN);

  // Impressions going up are better; spend going up is neither better nor worse.
  await expect(card(page, "Impressions").locator(".kpi-change .visually-hidden")).toHaveText("up 100.00%, better");
  expect(await colourOf(card(page, "Impressions").locator(".kpi-change"))).toBe(GREEN);
  const spend = card(page, "Spend").locator(".kpi-change");
  await expect(spend.locator(".visually-hidden")).toHaveText("up 20.00%");
  await expect(spend).toHaveAttribute("data-verdict", "neutral");
  expect(await colourOf(spend)).not.toBe(GREEN);
  expect(await colourOf(spend)).not.toBe(RED);
  // One way to write a figure: money with its code and two decimals, times and percentages with two.
  await expect(card(page, "Spend").locator(".kpi-value")).toHaveText("USD 12.00");
  await page.locator('details[data-group="Traffic"] summary').click();
  await expect(card(page, "CTR").locator(".kpi-value")).toHaveText("0.60%");
});

test("a period before the figures only partly ran in is said once; sums are not compared, ratios are", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(overview(YOUNG));
  await expect(page.getByTestId("partly-before-start")).toContainText("The period before is partly before the first day with figures: 5 of 10 days.");
  const impressions = card(page, "Impressions").locator(".kpi-change");
  await expect(impressions).toHaveAttribute("data-change", "not comparable");
  await expect(impressions.locator(".visually-hidden")).toHaveText("not comparable: the period before is partly before the start");
  await page.locator('details[data-group="Traffic"] summary').click();
  await expect(card(page, "CTR").locator(".kpi-change")).toHaveAttribute("data-change", "+50.00%");
});

test("drawing the period before is kept in the address, so a reload draws it again", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(overview(NOW));
  const toggle = page.getByLabel("Draw the period before (dashed)");
  const traffic = page.getByRole("figure", { name: "Impressions and clicks by day" });
  await expect(traffic.locator(".recharts-line-curve")).toHaveCount(2);
  await toggle.check();
  await expect(page).toHaveURL(/[?&]compare=1(&|$)/);
  await expect(traffic.locator(".recharts-line-curve")).toHaveCount(4);
  await page.reload();
  await expect(toggle).toBeChecked();
  await expect(traffic.locator(".recharts-line-curve")).toHaveCount(4);
  await toggle.uncheck();
  await expect(page).not.toHaveURL(/compare=/);
});

test("the range's days are typed and shown as YYYY-MM-DD, and a day that does not exist is said beside the field", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(overview(NOW));
  const from = page.getByLabel("From", { exact: true });
  await expect(from).toHaveValue(NOW.from);
  await expect(from).toHaveAttribute("placeholder", "YYYY-MM-DD");
  await from.fill("2024-02-30");
  await expect(page.getByText("2024-02-30 is not a day: write it as YYYY-MM-DD")).toBeVisible();
  await expect(from).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(new RegExp(`from=${NOW.from}`));
  await from.fill("2024-06-02");
  await expect(page).toHaveURL(/from=2024-06-02/);
  await expect(from).toHaveAttribute("aria-invalid", "false");
});

test("a publisher reads what advertisers spend as its revenue, and the advertisers' yardsticks as theirs", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(`/dashboard?from=${NOW.from}&to=${NOW.to}&account=${PUBLISHER}`);
  await expect(card(page, "Ad revenue")).toBeVisible();
  await expect(card(page, "Advertisers' ROAS")).toBeVisible();
  await expect(card(page, "Spend")).toHaveCount(0);
  await expect(page.getByRole("figure", { name: "Ad revenue and sales revenue by day" })).toBeVisible();
  const table = page.getByRole("table", { name: /Figures by day/ });
  await expect(table.getByRole("columnheader", { name: /^Ad revenue/ })).toBeVisible();
});

test("on a phone the overview keeps its header to two lines and its height within budget", async ({ page }) => {
  await signInAsStaff(page);
  await page.setViewportSize({ width: 390, height: 844 });
  // 30 days of an advertiser, whose figures here are only the ones seeded above: the same page on every run.
  await page.goto(`/dashboard?from=2024-05-08&to=${NOW.to}&account=${ADVERTISER}`);
  await expect(page.getByRole("table", { name: /Figures by day/ }).locator("tbody tr")).toHaveCount(30);
  await page.waitForLoadState("networkidle");

  const header = page.locator("header.dash-header");
  // Lines as a reader sees them: what stands at about the same height is one line.
  const lines = await header.evaluate((el) => {
    const items = [...el.querySelectorAll("a, button, .dash-who")].filter((item) => (item as HTMLElement).offsetParent !== null);
    const middles = items.map((item) => (item.getBoundingClientRect().top + item.getBoundingClientRect().bottom) / 2).sort((a, b) => a - b);
    return middles.filter((middle, i) => i === 0 || middle - middles[i - 1]! > 12).length;
  });
  expect(lines, "the header's lines at 390 px").toBeLessThanOrEqual(2);
  const folded = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-figures-390.png", fullPage: true });
  // Every group opened, as the overview was before it had groups: for the record beside the budget.
  await page.locator("details.kpi-group").evaluateAll((groups) => {
    for (const group of groups) (group as HTMLDetailsElement).open = true;
  });
  const unfolded = await page.evaluate(() => document.documentElement.scrollHeight);
  console.log(`overview at 390 px: ${folded} px folded, ${unfolded} px with every group open`);
  expect(folded).toBeLessThanOrEqual(PHONE_HEIGHT_BUDGET);

  // The screens fold behind Menu, and a screen chosen there closes it.
  await header.getByRole("button", { name: "Menu" }).click();
  await header.getByRole("link", { name: "Campaigns" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
  await expect(header.getByRole("link", { name: "Campaigns" })).toBeHidden();
});

test("a member who administers the account reads as account admin in the header, as in the team table", async ({ page }) => {
  await signIn(page, "acme@tally.local", "tally-demo-advertiser");
  await expect(page.locator("header.dash-header .dash-who")).toContainText("account admin");
});
