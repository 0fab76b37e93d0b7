import { expect, test } from "@playwright/test";
import { query, settled } from "./database";

const STAFF = { email: "staff@tally.local", password: "tally-demo-staff" };
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

test("the dashboard needs a sign-in, and a wrong password is refused in words", async ({ page }) => {
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.getByLabel("E-mail").fill(STAFF.email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /./ })).toHaveText("the e-mail or the password is wrong");
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("an account manager sees the overview's totals and charts for an account, and signs out", async ({ page, context, request }) => {
  // A banner impression on the demo store, so the figures are not all zero.
  const served = await request.post("/v1/ads", {
    data: {
      publisher_id: "pub_demo_market",
      site: "demomarket.com",
      session_id: `dash-${Date.now()}`,
      context: "home",
      placements: [{ name: "partner-banner", types: ["banner"], size: "728x90" }],
    },
  });
  const ad = ((await served.json()) as { ads: Record<string, { impression_url: string }[]> }).ads["partner-banner"]![0]!;
  expect((await request.post(ad.impression_url, { data: { session_id: `dash-${Date.now()}` } })).status()).toBe(202);

  await settled();
  await page.goto("/sign-in");
  await page.getByLabel("E-mail").fill(STAFF.email);
  await page.getByLabel("Password").fill(STAFF.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  // The session is an http-only cookie: the page's scripts cannot read it.
  const cookie = (await context.cookies()).find((c) => c.name === "tally_session");
  expect(cookie?.httpOnly).toBe(true);
  expect(await page.evaluate(() => document.cookie)).not.toContain("tally_session");

  await page.getByLabel("Account").selectOption({ label: "Demo Market (publisher)" });
  // How current the figures are: the beacons posted above are settled (settled() waited for it).
  const processing = page.getByRole("region", { name: "Processing" });
  // The lags are folded while every job is up to date, open while one is behind.
  const lags = processing.locator("details");
  if ((await lags.getAttribute("open")) === null) await lags.locator("summary").click();
  await expect(processing.locator('[data-lag="settle"]')).toHaveText(/^(up to date|[\d,]+ beacons waiting, the oldest for \d+ (s|min|h))$/);
  await expect(processing.locator('[data-lag="attribution"]')).toBeVisible();
  const kpis = page.getByRole("region", { name: "Totals" });
  // Six headline figures, then folded: traffic (views, CTR, the click conversion rate, units),
  // attribution (click- and view-through, halo, new-to-brand), the four cost metrics, and quality
  // (invalid events, the unverified orders apart from the credited ones).
  await expect(kpis.locator(".kpi")).toHaveCount(26);
  await expect(kpis.locator(".headline .kpi")).toHaveCount(6);
  // The impressions card shows what the rollups hold for the demo publisher over the last 30 days.
  const [stored] = await query<{ impressions: string; spend: string }>(
    "SELECT coalesce(sum(impressions), 0)::text AS impressions, coalesce(sum(spend_micros), 0)::text AS spend FROM daily_campaign_totals WHERE publisher_id = 'pub_demo_market' AND day BETWEEN $1 AND $2",
    [daysAgo(29), today()],
  );
  expect(Number(stored!.impressions)).toBeGreaterThan(0);
  await expect(kpis.locator('[data-kpi="Impressions"] .kpi-value')).toHaveText(new Intl.NumberFormat("en").format(Number(stored!.impressions)));
  // eCPM: spend per thousand impressions, to the cent on the card, in the account's currency.
  const ecpm = Math.round((Number(stored!.spend) * 1000) / Number(stored!.impressions)) / 1_000_000;
  await expect(kpis.locator('[data-kpi="eCPM"] .kpi-value')).toHaveText(
    `USD ${new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(ecpm)}`,
  );
  // The windows sales are credited by, named beside the figures.
  await expect(page.getByTestId("windows-in-force")).toContainText("product: click 14 d, view 14 d");
  const [unverified] = await query<{ orders: string }>(
    "SELECT coalesce(sum(unverified_conversions), 0)::text AS orders FROM daily_publisher_orders WHERE publisher_id = 'pub_demo_market' AND advertiser_id = '' AND day BETWEEN $1 AND $2",
    [daysAgo(29), today()],
  );
  await expect(kpis.locator('[data-kpi="Unverified conversions"] .kpi-value')).toHaveText(new Intl.NumberFormat("en").format(Number(unverified!.orders)));
  await expect(page.getByText("No traffic in this range yet")).toHaveCount(0);
  // Three charts drawn as SVG: impressions and clicks as two lines, spend as bars beside the sales
  // line, and each day's sales as click- and view-through bars stacked.
  await expect(page.locator("figure.chart .recharts-wrapper")).toHaveCount(3);
  await expect(page.getByRole("figure", { name: "Click- and view-through sales by day" })).toBeVisible();
  await expect(page.getByRole("figure", { name: "Impressions and clicks by day" }).locator(".recharts-line")).toHaveCount(2);
  await expect(page.getByRole("figure", { name: "Ad revenue and sales revenue by day" }).locator(".recharts-line")).toHaveCount(1);
  await expect(page.getByRole("figure", { name: "Impressions and clicks by day" })).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-overview.png", fullPage: true });

  await page.getByRole("button", { name: "Last 7 days" }).click();
  await expect(page.getByRole("button", { name: "Last 7 days" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByRole("textbox", { name: "From" })).toHaveValue(daysAgo(6));

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(kpis).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-overview-390.png", fullPage: true });

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/sign-in$/);
});
