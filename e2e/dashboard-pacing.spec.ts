import { expect, test } from "@playwright/test";
import { query, settled } from "./database";
import { signInAsStaff } from "./sign-in";

// A campaign of its own (a SKU no other campaign sells), so spending its budget takes no seeded
// campaign off the air for the other specs.
test("a campaign that spent its daily budget shows a full meter and 'Out of budget today'; its page shows the bid and budget just saved", async ({
  page,
  request,
}) => {
  const tag = Date.now().toString(36);
  const sku = `PACE-${tag}`.toUpperCase();
  const name = `Acme: pacing ${tag}`;
  await query("INSERT INTO products (id, advertiser_id, sku, name) VALUES ($1, 'adv_acme_coffee', $2, $3)", [`prd_pace_${tag}`, sku, `Pacing beans ${tag}`]);

  await signInAsStaff(page);
  await page.goto("/dashboard/campaigns/new");
  await page.getByLabel("Advertiser").selectOption({ label: "Acme Coffee" });
  const form = page.getByRole("form", { name: "New campaign" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Bid per click").fill("0.5");
  await form.getByLabel("Daily budget (optional)").fill("5");
  await form.getByLabel("Demo Market", { exact: true }).check();
  await form.getByLabel(new RegExp(`Pacing beans ${tag}`)).check();
  await form.getByRole("button", { name: "Create campaign" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();

  // Edited to a budget of one click: the page shows what was just saved.
  await page.getByRole("link", { name: "Edit" }).click();
  const edit = page.getByRole("form", { name: "Edit campaign" });
  await edit.getByLabel("Bid per click").fill("0.4");
  await edit.getByLabel("Daily budget (optional)").fill("0.4");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const budget = page.getByRole("region", { name: "Budget and pacing" });
  await expect(budget).toContainText("CPC USD 0.40");
  await expect(budget).toContainText("Daily budget");
  await expect(budget).toContainText("USD 0.40");
  await expect(page.getByRole("region", { name: "Wallet" })).toContainText("Balance");
  await expect(page.getByRole("region", { name: "Wallet" })).toContainText("USD");
  // A new campaign waits as a draft for its first ad: not yet serving, so not "No active ads" either.
  const status = page.locator("main h1 + p .badge");
  await expect(status).toHaveText("draft");
  await expect(budget.getByText("No active ads")).toHaveCount(0);

  // Its ad: only the product kind and the campaign's own product are offered.
  await page.getByRole("button", { name: "New ad" }).click();
  const adForm = page.getByRole("form", { name: "New ad" });
  await expect(adForm.getByLabel("Ad type").locator("option")).toHaveText(["product"]);
  await expect(adForm.getByRole("group", { name: "Products in the ad" }).getByRole("checkbox")).toHaveCount(1);
  // The draft starts with its first ad, unless told otherwise.
  await expect(adForm.getByLabel(/Start the campaign with this ad/)).toBeChecked();
  await adForm.getByLabel("Ad name").fill(`Pacing ad ${tag}`);
  await adForm.getByRole("checkbox", { name: new RegExp(sku) }).check();
  await adForm.getByRole("button", { name: "Create ad" }).click();
  await expect(page.getByRole("table", { name: `Ads of ${name}` }).getByRole("cell", { name: `Pacing ad ${tag}`, exact: true })).toBeVisible();
  await expect(status).toHaveText("active");
  await expect(budget.getByText("No active ads")).toHaveCount(0);

  // A shopper sees the ad on a search for the SKU and clicks it: 0.40, the whole budget.
  const session = `pace-${tag}`;
  const served = await request.post("/v1/ads", {
    data: {
      publisher_id: "pub_demo_market",
      site: "demomarket.com",
      session_id: session,
      context: "search",
      term: sku,
      placements: [{ name: "search-top", types: ["product"], quantity: 3 }],
    },
  });
  expect(served.status()).toBe(200);
  const [campaignRow] = await query<{ id: string }>("SELECT id FROM campaigns WHERE name = $1", [name]);
  const ads = ((await served.json()) as { ads: Record<string, { campaign_id: string; impression_url: string; click_url: string }[]> }).ads["search-top"] ?? [];
  const ours = ads.find((ad) => ad.campaign_id === campaignRow!.id);
  if (!ours) throw new Error("the ad query did not serve the new campaign's ad");
  expect((await request.post(ours.impression_url, { data: { session_id: session } })).status()).toBe(202);
  expect((await request.post(ours.click_url, { data: { session_id: session } })).status()).toBe(202);
  await settled();
  const [spend] = await query<{ spend_micros: string }>(
    "SELECT spend_micros::text FROM campaign_daily_spend WHERE campaign_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
    [campaignRow!.id],
  );
  expect(spend?.spend_micros).toBe("400000");

  // The list: bid with its model, budget, a full meter and the badge.
  await page.goto("/dashboard/campaigns");
  await page.getByLabel("Name", { exact: true }).fill(`pacing ${tag}`);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name }) });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("CPC USD 0.40");
  const meter = row.getByRole("meter", { name: "Spend today" });
  await expect(meter).toHaveAttribute("value", "0.4");
  await expect(meter).toHaveAttribute("max", "0.4");
  await expect(meter).toHaveAttribute("aria-valuetext", "USD 0.40 of USD 0.40 (100.00%)");
  await expect(row.getByText("Out of budget today")).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-pacing-list.png", fullPage: true });

  // The page says the same, and why.
  await row.getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(budget.getByRole("meter", { name: "Spend today" })).toHaveAttribute("aria-valuetext", "USD 0.40 of USD 0.40 (100.00%)");
  await expect(budget.getByText("Out of budget today")).toBeVisible();
  await expect(budget).toContainText("the campaign's daily budget is spent");
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-pacing-campaign.png", fullPage: true });
});
