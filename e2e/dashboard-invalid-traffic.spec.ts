import { expect, test } from "@playwright/test";
import { query, settled } from "./database";
import { signInAsStaff } from "./sign-in";

test("invalid traffic shows the filtered beacons by reason, as the rollups count them", async ({ page, request }) => {
  // One counted impression, its repeat (a duplicate), a bot's, one from a session the ad was not
  // served to and one without a user agent, on the demo store.
  const session = `itr-${Date.now()}`;
  const served = await request.post("/v1/ads", {
    data: {
      publisher_id: "pub_demo_market",
      site: "demomarket.com",
      session_id: session,
      context: "home",
      placements: [{ name: "partner-banner", types: ["banner"], size: "728x90" }],
    },
  });
  const ad = ((await served.json()) as { ads: Record<string, { impression_url: string }[]> }).ads["partner-banner"]![0]!;
  const chrome = { "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36" };
  expect((await request.post(ad.impression_url, { data: { session_id: session }, headers: chrome })).status()).toBe(202);
  expect((await request.post(ad.impression_url, { data: { session_id: session }, headers: chrome })).status()).toBe(202);
  expect(
    (
      await request.post(ad.impression_url, {
        data: { session_id: `${session}-bot` },
        headers: { "User-Agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" },
      })
    ).status(),
  ).toBe(202);
  expect((await request.post(ad.impression_url, { data: { session_id: `${session}-other` }, headers: chrome })).status()).toBe(202);
  expect((await request.post(ad.impression_url, { data: { session_id: session }, headers: { "User-Agent": "" } })).status()).toBe(202);

  await settled();
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Invalid traffic" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Invalid traffic" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Demo Market (publisher)" });

  const [stored] = await query<Record<"duplicates" | "bots" | "mismatched" | "agentless" | "reused" | "fast", string>>(
    `SELECT sum(duplicate_events)::text AS duplicates, sum(bot_events)::text AS bots, sum(session_mismatch_events)::text AS mismatched,
            sum(no_user_agent_events)::text AS agentless, sum(token_reuse_events)::text AS reused, sum(click_velocity_events)::text AS fast
       FROM daily_campaign_totals WHERE publisher_id = 'pub_demo_market' AND day > current_date - 30`,
  );
  for (const count of [stored!.duplicates, stored!.bots, stored!.mismatched, stored!.agentless]) expect(Number(count)).toBeGreaterThanOrEqual(1);
  const cards = page.getByRole("region", { name: "Filtered beacons" });
  const shown = (count: string) => new Intl.NumberFormat("en").format(Number(count));
  await expect(cards.locator('[data-kpi="Duplicates"] .kpi-value')).toHaveText(shown(stored!.duplicates));
  await expect(cards.locator('[data-kpi="Bots"] .kpi-value')).toHaveText(shown(stored!.bots));
  await expect(cards.locator('[data-kpi="Session mismatch"] .kpi-value')).toHaveText(shown(stored!.mismatched));
  await expect(cards.locator('[data-kpi="No user agent"] .kpi-value')).toHaveText(shown(stored!.agentless));
  await expect(cards.locator('[data-kpi="Token reuse"] .kpi-value')).toHaveText(shown(stored!.reused));
  await expect(cards.locator('[data-kpi="Click velocity"] .kpi-value')).toHaveText(shown(stored!.fast));
  await expect(page.getByRole("figure", { name: "Filtered beacons by day" }).locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-invalid-traffic.png", fullPage: true });
});
