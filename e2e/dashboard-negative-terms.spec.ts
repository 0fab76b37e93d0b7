// A campaign's negative terms as staff meet them on its page: added as a phrase, listed, in the
// campaign's activity, and obeyed by the very next ad query; removed, and the campaign serves
// again. The term is this run's own word, so other specs' ad queries never meet it.
import { type APIRequestContext, expect, test } from "@playwright/test";
import { signInAsStaff } from "./sign-in";

const CAMPAIGN = "cmp_northwind_display";

/** Whether the demo market's ad query for `term` serves the Northwind banners' campaign. */
async function servesNorthwind(request: APIRequestContext, term: string): Promise<boolean> {
  const answer = await request.post("/v1/ads", {
    data: {
      publisher_id: "pub_demo_market",
      site: "demomarket.com",
      session_id: `negative-${Date.now()}`,
      context: "search",
      term,
      placements: [{ name: "top", types: ["banner"], quantity: 10 }],
    },
  });
  expect(answer.status()).toBe(200);
  const { ads } = (await answer.json()) as { ads: Record<string, { campaign_id: string }[]> };
  return ads.top!.some((ad) => ad.campaign_id === CAMPAIGN);
}

test("staff add a phrase negative term on a campaign's page, the ad query obeys it at once, and removing it serves the campaign again", async ({
  page,
  request,
}) => {
  const word = `tentz${Date.now().toString(36)}`;
  const searched = `Summer ${word.toUpperCase()} deals`;
  expect(await servesNorthwind(request, searched)).toBe(true);

  await signInAsStaff(page);
  await page.goto(`/dashboard/campaigns/${CAMPAIGN}`);
  const section = page.getByRole("region", { name: "Negative terms" });
  const form = section.getByRole("form", { name: "Add a negative term" });
  await form.getByLabel("Term", { exact: true }).fill(`  ${word.toUpperCase()} deals `);
  await form.getByLabel("Match").selectOption("phrase");
  await form.getByRole("button", { name: "Add negative term" }).click();
  const table = section.getByRole("table", { name: "Negative terms of this campaign" });
  const row = table.getByRole("row").filter({ hasText: `${word} deals` });
  await expect(row).toContainText("phrase");
  await expect(form.getByLabel("Term", { exact: true })).toHaveValue("");

  expect(await servesNorthwind(request, searched)).toBe(false);
  expect(await servesNorthwind(request, `${word} summer deals`)).toBe(true);

  const activity = page.getByRole("table", { name: "Campaign activity" });
  await expect(activity.locator('tr[data-action="campaign.negative_term.added"]').first()).toContainText(
    `Demo Account Manager added the phrase negative term “${word} deals” to campaign “Northwind: summer banners”`,
  );
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-negative-terms.png", fullPage: true });

  await row.getByRole("button", { name: `Remove phrase negative term ${word} deals` }).click();
  await expect(table.getByRole("row").filter({ hasText: `${word} deals` })).toHaveCount(0);
  expect(await servesNorthwind(request, searched)).toBe(true);
});
