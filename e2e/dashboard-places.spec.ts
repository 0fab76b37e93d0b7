// Every screen opened from its address lands where it was: the account (`account`) on Accounts,
// API keys and Exports, an export's open run history; staff with no account in the address land
// on the advertiser that spent most recently, not on the first name of the list; a range the
// address asks for that a view cannot show says so.
import { expect, type Page, test } from "@playwright/test";
import { query } from "./database";
import { signInAsStaff } from "./sign-in";

const accountInAddress = (page: Page) => new URL(page.url()).searchParams.get("account");

test("Accounts, API keys and Exports open the account in the address, and write the one chosen there", async ({ page }) => {
  await signInAsStaff(page);

  await page.goto("/dashboard/accounts?account=adv_northwind");
  await expect(page.getByRole("region", { name: "Account Northwind Outdoor" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Northwind Outdoor" })).toHaveAttribute("aria-current", "true");
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Corner Grocer" }).click();
  await expect(page.getByRole("region", { name: "Account Corner Grocer" })).toBeVisible();
  await expect.poll(() => accountInAddress(page)).toBe("pub_corner_grocer");
  await page.reload();
  await expect(page.getByRole("region", { name: "Account Corner Grocer" })).toBeVisible();

  await page.goto("/dashboard/api-keys?account=pub_demo_market");
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(page.getByLabel("Account")).toHaveValue("pub_demo_market");
  await page.getByLabel("Account").selectOption({ label: "Acme Coffee (advertiser)" });
  await expect.poll(() => accountInAddress(page)).toBe("adv_acme_coffee");
  await page.reload();
  await expect(page.getByLabel("Account")).toHaveValue("adv_acme_coffee");

  // The demo bucket belongs to Demo Market: it is there at once, its run history open as the address says.
  const [demo] = await query<{ id: string }>("SELECT id FROM export_destinations WHERE name = 'Local demo bucket'");
  await page.goto(`/dashboard/exports?account=pub_demo_market&runs=${demo!.id}`);
  await expect(page.getByLabel("Account")).toHaveValue("pub_demo_market");
  const bucket = page.getByRole("region", { name: "Destination Local demo bucket" });
  await expect(bucket.getByRole("button", { name: "Run history" })).toHaveAttribute("aria-expanded", "true");
  await expect(bucket.getByRole("table", { name: "Run history of Local demo bucket" }).or(bucket.getByText("No runs yet"))).toBeVisible();
  await bucket.getByRole("button", { name: "Run history" }).click();
  await expect(bucket.getByRole("button", { name: "Run history" })).toHaveAttribute("aria-expanded", "false");
  await expect.poll(() => new URL(page.url()).searchParams.get("runs")).toBeNull();
  await page.getByLabel("Account").selectOption({ label: "Northwind Outdoor (advertiser)" });
  await expect(bucket).toHaveCount(0);
  await expect.poll(() => accountInAddress(page)).toBe("adv_northwind");
});

test("staff with no account in the address land on the advertiser that spent most recently, not the first of the list", async ({ page }) => {
  // Brightsmile spends the most on the latest day with spend; its row is put back as it was afterwards.
  const [before] = await query<{ spend: string }>(
    "SELECT spend_micros::text AS spend FROM advertiser_daily_spend WHERE advertiser_id = 'adv_brightsmile' AND day = (now() AT TIME ZONE 'UTC')::date",
  );
  await query(
    `INSERT INTO advertiser_daily_spend (advertiser_id, day, spend_micros)
     SELECT 'adv_brightsmile', d.day, coalesce((SELECT max(spend_micros) FROM advertiser_daily_spend WHERE day = d.day), 0) + 1000000
       FROM (SELECT greatest((now() AT TIME ZONE 'UTC')::date, (SELECT max(day) FROM advertiser_daily_spend)) AS day) d
     ON CONFLICT (advertiser_id, day) DO UPDATE SET spend_micros = EXCLUDED.spend_micros`,
  );
  try {
    await signInAsStaff(page);
    await page.getByRole("link", { name: "Accounts" }).click();
    const list = page.getByRole("navigation", { name: "Accounts" });
    await expect(page.getByRole("region", { name: "Account Brightsmile Dental" })).toBeVisible();
    await expect(list.getByRole("button").first()).not.toHaveText("Brightsmile Dental");
    // The account landed on is written into the address, so a reload keeps it.
    await expect.poll(() => accountInAddress(page)).toBe("adv_brightsmile");

    for (const [link, heading] of [
      ["API keys", "API keys"],
      ["Exports", "Exports"],
    ] as const) {
      await page.getByRole("link", { name: link }).click();
      await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
      await expect(page.getByLabel("Account")).toHaveValue("adv_brightsmile");
    }
  } finally {
    if (before)
      await query("UPDATE advertiser_daily_spend SET spend_micros = $1 WHERE advertiser_id = 'adv_brightsmile' AND day = (now() AT TIME ZONE 'UTC')::date", [
        before.spend,
      ]);
    else await query("DELETE FROM advertiser_daily_spend WHERE advertiser_id = 'adv_brightsmile' AND day >= (now() AT TIME ZONE 'UTC')::date");
  }
});

test("a range the address asks for that a view cannot show says what was asked and what is shown instead", async ({ page }) => {
  await signInAsStaff(page);
  const from = await page.getByLabel("From", { exact: true }).inputValue();
  const to = await page.getByLabel("To", { exact: true }).inputValue();
  const instead = `showing ${from} to ${to} instead.`;

  await page.goto("/dashboard?from=2020-01-01&to=2026-01-01");
  const notice = page.getByTestId("range-notice");
  await expect(notice).toHaveText(`The range asked for, 2020-01-01 to 2026-01-01, spans 2,193 days, more than the 366 a view shows: ${instead}`);
  await expect(page.getByLabel("From", { exact: true })).toHaveValue(from);
  await expect(page.getByLabel("To", { exact: true })).toHaveValue(to);

  await page.goto("/dashboard/campaigns?from=2026-10-31&to=2026-10-01");
  await expect(notice).toHaveText(`The range asked for, 2026-10-31 to 2026-10-01, ends before it starts: ${instead}`);
  await page.goto("/dashboard/invalid-traffic?from=2026-02-30&to=2026-03-01");
  await expect(notice).toHaveText(`The start day asked for, “2026-02-30”, is not a day (YYYY-MM-DD): ${instead}`);

  // Choosing a range puts a good one in the address, and the notice goes.
  await page.getByRole("button", { name: "Last 7 days" }).click();
  await expect(notice).toHaveCount(0);
  await expect.poll(() => new URL(page.url()).searchParams.get("to")).toBe(to);
});
