// The heatmap of hours on a campaign's page: cells named by weekday, hour and figure, shaded from
// the busiest cell, the metric switched from its select, and the same rows downloaded as CSV.
import { expect, test } from "@playwright/test";
import { query } from "./database";
import { readCsv } from "./files";
import { signInAsStaff } from "./sign-in";

// A week long past, where no other spec's traffic lands.
const RANGE = { from: "2025-05-04", to: "2025-05-10" };
const CAMPAIGN = "cmp_northwind_display";
const ADVERTISER = "adv_northwind";
const PUBLISHER = "pub_demo_market";

// Tuesday 6 May 14:00 UTC: 1,500 impressions and 15 clicks; Thursday 8 May 09:00: 100 impressions
// and 20 clicks. The busiest hour by impressions is not the busiest by clicks.
const SEEDED = [
  { day: "2025-05-06", hour: 14, impressions: 1500, clicks: 15 },
  { day: "2025-05-08", hour: 9, impressions: 100, clicks: 20 },
];

// The campaign's hourly rows, and the advertiser's (the campaign is its only one with hours that
// week): a campaign's heatmap reads the first, the overview's the second.
test.beforeAll(async () => {
  await query(`DELETE FROM hourly_campaign_totals WHERE campaign_id = $1 AND day BETWEEN $2 AND $3`, [CAMPAIGN, RANGE.from, RANGE.to]);
  await query(`DELETE FROM hourly_advertiser_totals WHERE advertiser_id = $1 AND day BETWEEN $2 AND $3`, [ADVERTISER, RANGE.from, RANGE.to]);
  for (const row of SEEDED) {
    await query(
      `INSERT INTO hourly_campaign_totals (zone, day, hour, publisher_id, advertiser_id, campaign_id, impressions, clicks)
       VALUES ('UTC', $1, $2, $3, $4, $5, $6, $7)`,
      [row.day, row.hour, PUBLISHER, ADVERTISER, CAMPAIGN, row.impressions, row.clicks],
    );
    // As the writers keep them: the publisher's row and the one over every publisher ('').
    for (const publisher of [PUBLISHER, ""]) {
      await query(
        `INSERT INTO hourly_advertiser_totals (zone, day, hour, publisher_id, advertiser_id, impressions, clicks)
         VALUES ('UTC', $1, $2, $3, $4, $5, $6)`,
        [row.day, row.hour, publisher, ADVERTISER, row.impressions, row.clicks],
      );
    }
  }
});

test("a campaign's heatmap of hours names and shades its cells, switches metric, and downloads its table as CSV", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(`/dashboard/campaigns/${CAMPAIGN}?from=${RANGE.from}&to=${RANGE.to}`);
  const heatmap = page.getByRole("region", { name: "By hour of the week" });
  await expect(heatmap.getByTestId("hours-zone")).toContainText("Hours in UTC");
  const grid = heatmap.getByRole("table", { name: "Impressions by weekday and hour" });
  await expect(grid.getByRole("cell")).toHaveCount(168);
  const tuesday = grid.getByRole("cell", { name: "Tuesday 14:00–15:00: 1,500 impressions", exact: true });
  const thursday = grid.getByRole("cell", { name: "Thursday 09:00–10:00: 100 impressions", exact: true });
  await expect(tuesday).toHaveAttribute("data-shade", "5");
  await expect(tuesday).toHaveAttribute("title", "Tuesday 14:00–15:00: 1,500 impressions");
  await expect(thursday).toHaveAttribute("data-shade", "1");
  await expect(grid.getByRole("cell", { name: "Monday 14:00–15:00: 0 impressions", exact: true })).toHaveAttribute("data-shade", "0");
  await expect(heatmap.getByRole("list", { name: "Scale of Impressions" })).toContainText("up to 1,500");

  // By clicks, Thursday morning is the busier hour.
  await heatmap.getByRole("combobox", { name: "Shade by" }).selectOption({ label: "Clicks" });
  await expect(page).toHaveURL(/hours=clicks_total/);
  const byClicks = heatmap.getByRole("table", { name: "Clicks by weekday and hour" });
  await expect(byClicks.getByRole("cell", { name: "Thursday 09:00–10:00: 20 clicks", exact: true })).toHaveAttribute("data-shade", "5");
  await expect(byClicks.getByRole("cell", { name: "Tuesday 14:00–15:00: 15 clicks", exact: true })).toHaveAttribute("data-shade", "4");

  const tools = heatmap.locator(".data-table");
  await expect(tools.locator("tbody tr")).toHaveCount(168);
  const [csv] = await Promise.all([page.waitForEvent("download"), tools.getByRole("button", { name: "Download CSV" }).click()]);
  expect(csv.suggestedFilename()).toMatch(/-hours-2025-05-04-2025-05-10\.csv$/);
  const lines = (await readCsv((await csv.path())!)).filter((line) => line.some((cell) => cell !== ""));
  expect(lines[0]!.slice(0, 4)).toEqual(["Weekday", "Hour", "Impressions", "Clicks"]);
  // 168 rows, weekday then hour, then the totals.
  expect(lines).toHaveLength(1 + 168 + 1);
  const tuesdayLine = lines[1 + 2 * 24 + 14]!;
  expect(tuesdayLine.slice(0, 4)).toEqual(["2", "14", "1500", "15"]);
  expect(lines[1 + 4 * 24 + 9]!.slice(0, 4)).toEqual(["4", "9", "100", "20"]);
});

test("the overview keeps its heatmap folded until asked, then shows the account's hours", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto(`/dashboard?from=${RANGE.from}&to=${RANGE.to}&account=${ADVERTISER}`);
  const heatmap = page.getByRole("region", { name: "By hour of the week" });
  await expect(heatmap.getByRole("table")).toHaveCount(0);
  await heatmap.getByRole("button", { name: "Show the hours of the week" }).click();
  await expect(heatmap.getByRole("cell", { name: "Tuesday 14:00–15:00: 1,500 impressions", exact: true })).toHaveAttribute("data-shade", "5");
});
