// The dashboard in the viewer's zone: an advertiser's user in São Paulo reads São Paulo dates (the
// overview's range ends on today's São Paulo date, whatever the hour in UTC), sees the zone named,
// and reads moments (an API key made, its activity entry) in São Paulo time; staff choose a zone in
// the header, kept in the address, and open an account's screens in its zone.
import { randomBytes, scryptSync } from "node:crypto";
import { expect, test } from "@playwright/test";
import { query } from "./database";
import { signIn, signInAsStaff } from "./sign-in";

const SAO_PAULO = "America/Sao_Paulo";
const suffix = randomBytes(4).toString("hex");
const ACCOUNT = `adv_padaria_${suffix}`;
const EMAIL = `padaria-${suffix}@saopaulo.test`;
const PASSWORD = "padaria-secret-1";

/** Today's date in São Paulo, YYYY-MM-DD, computed apart from Tally's code. */
const saoPauloToday = () => new Intl.DateTimeFormat("en-CA", { timeZone: SAO_PAULO }).format(new Date());

/** A moment as the dashboard writes it in São Paulo (UTC−03:00 all year since 2019), computed apart from Tally's code. */
const inSaoPaulo = (iso: string) => `${new Date(Date.parse(iso) - 3 * 3_600_000).toISOString().slice(0, 16).replace("T", " ")} UTC−03:00`;

test.beforeAll(async () => {
  // An advertiser in São Paulo, which the report tables keep, and its admin, stored as the app stores users.
  await query("INSERT INTO accounts (id, kind, name, seller_id, time_zone, updated_at) VALUES ($1, 'advertiser', $2, $3, $4, now())", [
    ACCOUNT,
    `Padaria Paulista ${suffix}`,
    `seller-padaria-${suffix}`,
    SAO_PAULO,
  ]);
  // Kept from the next UTC midnight (the next hour for hours), as a zone newly kept is: its rows hold the events from then on.
  await query(
    `INSERT INTO report_zones (zone, since, hours_since)
     VALUES ($1, date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day', date_trunc('hour', now()) + interval '1 hour')
     ON CONFLICT (zone) DO NOTHING`,
    [SAO_PAULO],
  );
  const salt = randomBytes(16);
  const hash = scryptSync(PASSWORD.normalize("NFKC"), salt, 64, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  await query("INSERT INTO users (id, email, name, password_hash, role, account_id, member_role) VALUES ($1, $2, $3, $4, 'member', $5, 'admin')", [
    `usr_${randomBytes(8).toString("hex")}`,
    EMAIL,
    "Padaria Admin",
    ["scrypt", 32768, 8, 1, salt.toString("base64url"), hash.toString("base64url")].join("$"),
    ACCOUNT,
  ]);
});

test("an advertiser's user in São Paulo reads São Paulo dates and times, and the zone is named", async ({ page }) => {
  const before = saoPauloToday();
  await signIn(page, EMAIL, PASSWORD);
  const after = saoPauloToday();
  const main = page.locator("main");
  await expect(main.getByText(`Days in ${SAO_PAULO}`, { exact: true })).toBeVisible();
  await expect(page.getByRole("banner").getByText(`Days and times in ${SAO_PAULO}`, { exact: true })).toBeVisible();
  // The overview's range ends today in São Paulo (either side of a midnight passed while signing in).
  const to = await page.getByRole("textbox", { name: "To" }).inputValue();
  expect([before, after]).toContain(to);
  // A member reads in their account's zone: no choice of zone, and one asked in the address is not taken.
  await expect(page.getByRole("combobox", { name: "Days and times in" })).toHaveCount(0);
  await page.goto("/dashboard?tz=UTC");
  await expect(main.getByText(`Days in ${SAO_PAULO}`, { exact: true })).toBeVisible();

  // A key made now: its creation is written in São Paulo time, in its table and in the activity log.
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill("Planilha");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key")).toBeVisible();
  const [key] = await query<{ created: string }>(
    "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS created FROM api_keys WHERE account_id = $1",
    [ACCOUNT],
  );
  await expect(
    page
      .getByRole("table", { name: /API keys/ })
      .getByRole("cell", { name: inSaoPaulo(key!.created), exact: true })
      .first(),
  ).toBeVisible();

  await page.getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  const entry = page.getByRole("table", { name: "Activity" }).locator('tr[data-action="api_key.created"]');
  await expect(entry).toHaveCount(1);
  const at = (await entry.locator("time").getAttribute("datetime"))!;
  await expect(entry.locator("time")).toHaveText(inSaoPaulo(at));
  await expect(entry.locator("time")).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC−03:00$/);
});

test("staff choose a zone in the header, kept in the address, and open an account's screens in its zone", async ({ page }) => {
  await signInAsStaff(page);
  const main = page.locator("main");
  const zone = page.getByRole("combobox", { name: "Days and times in" });
  // The operator's default (UTC unset) everywhere but an account's own screens.
  await expect(zone).toHaveValue("UTC");
  await expect(main.getByText("Days in UTC", { exact: true })).toBeVisible();
  await zone.selectOption(SAO_PAULO);
  await expect(page).toHaveURL(/tz=America%2FSao_Paulo/);
  await expect(main.getByText(`Days in ${SAO_PAULO}`, { exact: true })).toBeVisible();
  const before = saoPauloToday();
  const to = await page.getByRole("textbox", { name: "To" }).inputValue();
  expect([before, saoPauloToday()]).toContain(to);
  // The screens' links keep the choice.
  await page.getByRole("link", { name: "Campaigns" }).click();
  await expect(page).toHaveURL(/\/dashboard\/campaigns\?tz=America%2FSao_Paulo/);
  await expect(zone).toHaveValue(SAO_PAULO);

  // An account's campaigns with no zone asked: that account's zone, named as this view's.
  await page.goto(`/dashboard/campaigns?account=${ACCOUNT}`);
  await expect(zone).toHaveValue(SAO_PAULO);
  await expect(zone.locator("option:checked")).toHaveText(`${SAO_PAULO} (this view's)`);
  await zone.selectOption("UTC");
  await expect(page).toHaveURL(/tz=UTC/);
  await expect(main.getByText("Days in UTC", { exact: true })).toBeVisible();
});
