// One file over 300 lines on purpose: one change of every kind, each made through its own form, reads best beside the list it is checked against.
// The activity log as a person meets it: a campaign's budget and bid changed in its form show on the
// Activity page and the campaign's page as before → after; the page's filters live in its address,
// so a reload keeps them; one change of every kind, each made in its own form, is listed once.
import { expect, type Page, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { ACTIVITY_KINDS, type ActivityKind } from "../src/server/activity/activity-input";
import { query } from "./database";
import { signInAsStaff } from "./sign-in";

test("a campaign's budget and bid changes are listed with before → after, and the filters survive a reload", async ({ page }) => {
  const name = `Acme: activity beans ${Date.now()}`;
  await signInAsStaff(page);
  await page.goto("/dashboard/campaigns/new");
  await expect(page.getByRole("heading", { level: 1, name: "New campaign" })).toBeVisible();
  await page.getByLabel("Advertiser").selectOption({ label: "Acme Coffee" });
  const form = page.getByRole("form", { name: "New campaign" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Bid per click").fill("0.35");
  await form.getByLabel("Daily budget (optional)").fill("50");
  await form.getByLabel("Demo Market", { exact: true }).check();
  await form.getByRole("button", { name: "Create campaign" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  const campaignPath = new URL(page.url()).pathname;

  await page.getByRole("link", { name: "Edit" }).click();
  const edit = page.getByRole("form", { name: "Edit campaign" });
  await edit.getByLabel("Daily budget (optional)").fill("80");
  await edit.getByLabel("Bid per click").fill("0.5");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();

  // The campaign's page: its own entries, the change first.
  const own = page.getByRole("table", { name: "Campaign activity" });
  const changed = own.locator('tr[data-action="campaign.updated"]');
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText("Daily budget: USD 50.00 → USD 80.00");
  await expect(changed).toContainText("Bid: USD 0.35 → USD 0.50");
  await expect(changed).toContainText("staff@tally.local");
  await expect(changed).toContainText(`Demo Account Manager changed campaign “${name}”`);
  await expect(changed).not.toContainText("Name:");
  // When: a minute in UTC, how long ago on hover; never an ISO moment.
  await expect(changed.locator("time")).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  await expect(changed.locator("time")).toHaveAttribute("title", /ago|now/);
  await expect(own.locator('tr[data-action="campaign.created"]')).toHaveCount(1);

  // The Activity page, filtered by kind and text through its form: the filters go to the address.
  await page.getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await page.getByLabel("Kind of change").selectOption({ label: "Campaigns" });
  await page.getByLabel("Text").fill(name);
  await page.getByLabel("Who").fill("staff@tally");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/kind=campaign\./);
  await expect(page).toHaveURL(/who=staff%40tally/);
  const table = page.getByRole("table", { name: "Activity" });
  await expect(table.getByRole("row")).toHaveCount(3); // the header, the change and the creation
  await expect(table.locator('tr[data-action="campaign.updated"]')).toContainText("Daily budget: USD 50.00 → USD 80.00");
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-activity.png", fullPage: true });

  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await expect(page.getByLabel("Kind of change")).toHaveValue("campaign.");
  await expect(page.getByLabel("Text")).toHaveValue(name);
  await expect(page.getByLabel("Who")).toHaveValue("staff@tally");
  await expect(table.getByRole("row")).toHaveCount(3);
  await expect(table.locator('tr[data-action="campaign.updated"]')).toContainText("Bid: USD 0.35 → USD 0.50");

  // The entries shown, as a file a reader Tally did not write (exceljs) opens: a row each, in the order shown.
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download XLSX" }).click()]);
  expect(file.suggestedFilename()).toBe("activity.xlsx");
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await file.path())!);
  const sheet = workbook.worksheets[0]!;
  expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(["When (UTC)", "Who", "What", "Account", "Change"]);
  expect(sheet.actualRowCount).toBe(3);
  expect(String(sheet.getRow(2).getCell(5).value)).toContain("Daily budget: USD 50.00 → USD 80.00");
  expect(String(sheet.getRow(2).getCell(3).value)).toBe(`Demo Account Manager changed campaign “${name}”`);
  expect(sheet.getRow(2).getCell(1).value).toBeInstanceOf(Date);

  // Another kind of change leaves none of them; the stored entry is the one shown.
  await page.getByLabel("Kind of change").selectOption({ label: "API keys" });
  await expect(page).toHaveURL(/kind=api_key\./);
  await expect(page.getByText("No changes match.")).toBeVisible();
  const [entry] = await query<{ before: unknown; after: unknown; campaign_id: string }>(
    "SELECT before, after, campaign_id FROM activity_log WHERE action = 'campaign.updated' AND subject LIKE $1",
    [`%${name}%`],
  );
  expect(entry).toEqual({ before: { bid: 0.35, dailyBudget: 50 }, after: { bid: 0.5, dailyBudget: 80 }, campaign_id: campaignPath.split("/").at(-1) });
});

/** The names this run gives what it makes: each holds `run`, which the Activity page's text filter finds. */
function namesOf(run: string) {
  return {
    account: `Activity Roasters ${run}`,
    product: `Activity beans ${run}`,
    sku: `ACT-${run}`,
    campaign: `Activity Roasters ${run}: launch`,
    ad: `Activity tile ${run}`,
    apiKey: `Activity key ${run}`,
    oauthClient: `Activity tool ${run}`,
    destination: `Activity lake ${run}`,
    invitee: `activity-${run}@roasters.test`,
  };
}
type Names = ReturnType<typeof namesOf>;

/** Accounts: a new advertiser, its wallet topped up, its daily budget set, a product, a user invited. */
async function changeAnAccount(page: Page, names: Names) {
  await page.getByRole("link", { name: "Accounts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();
  await page.getByRole("button", { name: "New account" }).click();
  const form = page.getByRole("form", { name: "New account" });
  await form.getByLabel("Name").fill(names.account);
  await form.getByLabel("Opening wallet").fill("100");
  await form.getByRole("button", { name: "Create account" }).click();
  const detail = page.getByRole("region", { name: `Account ${names.account}` });
  await detail.getByLabel("Top-up amount").fill("25");
  await detail.getByRole("button", { name: "Top up" }).click();
  await detail.getByRole("group", { name: "Confirm the top-up" }).getByRole("button", { name: "Add USD 25.00" }).click();
  await expect(detail.locator('[data-kpi="Wallet"] .kpi-value')).toHaveText("USD 125.00");
  await detail.getByLabel("Daily budget (empty for none)").fill("30");
  await detail.getByRole("button", { name: "Save budget" }).click();
  await expect(detail.locator('[data-kpi="Daily budget"] .kpi-value')).toHaveText("USD 30.00");

  const product = detail.getByRole("form", { name: "Add a product" });
  await product.getByLabel("SKU").fill(names.sku);
  await product.getByLabel("Product name").fill(names.product);
  await product.getByLabel("Price").fill("4.5");
  await product.getByRole("button", { name: "Add product" }).click();
  await expect(detail.getByRole("cell", { name: names.product, exact: true })).toBeVisible();

  const team = detail.getByRole("region", { name: "Team" });
  const invite = team.getByRole("form", { name: "Invite a user" });
  await invite.getByLabel("E-mail to invite").fill(names.invitee);
  await invite.getByLabel("Role").selectOption("viewer");
  await invite.getByRole("button", { name: "Invite" }).click();
  await expect(team.getByRole("table", { name: "Open invitations" })).toContainText(names.invitee);
}

/** A campaign of the new advertiser promoting its product on Demo Market, an ad on it, and the SKU listed in Demo Market's catalogue. */
async function changeCampaignsAndCatalogue(page: Page, names: Names) {
  await page.goto("/dashboard/campaigns/new");
  await page.getByLabel("Advertiser").selectOption({ label: names.account });
  const form = page.getByRole("form", { name: "New campaign" });
  await form.getByLabel("Name").fill(names.campaign);
  await form.getByLabel("Bid per click").fill("0.4");
  await form.getByLabel("Demo Market", { exact: true }).check();
  await form.getByLabel(names.product).check();
  await form.getByRole("button", { name: "Create campaign" }).click();
  await expect(page.getByRole("heading", { level: 1, name: names.campaign })).toBeVisible();
  await page.getByRole("button", { name: "New ad" }).click();
  const ad = page.getByRole("form", { name: "New ad" });
  await ad.getByLabel("Ad name").fill(names.ad);
  await ad.getByRole("button", { name: "Create ad" }).click();
  await expect(page.getByRole("table", { name: `Ads of ${names.campaign}` }).getByRole("cell", { name: names.ad, exact: true })).toBeVisible();

  await page.getByRole("link", { name: "Accounts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Accounts" })).toBeVisible();
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Demo Market" }).click();
  const catalogue = page.getByRole("region", { name: "Account Demo Market" }).getByRole("form", { name: "List a SKU" });
  await catalogue.getByLabel("SKU").fill(names.sku);
  await catalogue.getByLabel("Brand").selectOption({ label: names.account });
  await catalogue.getByRole("button", { name: "List SKU" }).click();
  await expect(page.getByText(`${names.sku} belongs to ${names.account} here.`)).toBeVisible();
}

/** An API key, an OAuth client and an export destination (on the launcher's local S3) for the new advertiser. */
async function changeAccessAndExports(page: Page, names: Names, secret: string) {
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: `${names.account} (advertiser)` });
  await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill(names.apiKey);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-key")).toBeVisible();
  const clients = page.getByRole("region", { name: "OAuth clients" });
  await clients.getByLabel("Client name").fill(names.oauthClient);
  await clients.getByRole("button", { name: "Create client" }).click();
  await expect(clients.getByTestId("new-client-id")).toBeVisible();

  const [demo] = await query<{ endpoint: string }>("SELECT endpoint FROM export_destinations WHERE name = 'Local demo bucket'");
  await page.getByRole("link", { name: "Exports" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Exports" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: `${names.account} (advertiser)` });
  await page.getByRole("button", { name: "Add a destination" }).click();
  const form = page.getByRole("form", { name: "Add destination" });
  await form.getByLabel("Name").fill(names.destination);
  await form.getByLabel("Bucket").fill("tally-demo");
  await form.getByLabel("Endpoint (S3-compatible stores only)").fill(demo!.endpoint);
  await form.getByLabel("Key prefix").fill(`activity-${names.sku.toLowerCase()}`);
  await form.getByLabel("Path-style addresses").check();
  await form.getByLabel("Access key id").fill("S3RVER");
  await form.getByLabel("Secret access key").fill(secret);
  await form.getByRole("button", { name: "Add destination" }).click();
  await expect(page.getByRole("region", { name: `Destination ${names.destination}` })).toBeVisible();
}

const videoClickDays = async () =>
  (await query<{ days: number }>("SELECT click_window_seconds / 86400 AS days FROM attribution_windows WHERE campaign_type = 'video'"))[0]?.days;

/** Settings: video campaigns' click window changed, then set back for the specs that follow; returns the days it was and became. */
async function changeVideoWindows(page: Page): Promise<{ was: number; became: number }> {
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  const video = page.getByRole("form", { name: "video campaigns" });
  const click = video.getByLabel("Click window (days)");
  await expect(click).not.toHaveValue("");
  const was = Number(await click.inputValue());
  const became = was === 9 ? 10 : 9;
  const save = video.getByRole("button", { name: "Save" });
  for (const days of [became, was]) {
    // An edit typed before the form has taken its state can be lost on a loaded machine (Save stays
    // disabled): it is typed again until the form holds it.
    await expect(async () => {
      await click.fill(String(days));
      await expect(save).toBeEnabled({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    // The form takes a new edit once the save has answered (it clears its edit then).
    await Promise.all([page.waitForResponse((response) => response.url().includes("attribution.setWindows")), save.click()]);
    await expect.poll(videoClickDays).toBe(days);
  }
  return { was, became };
}

test("every kind of change made in the dashboard is listed under its kind", async ({ page }) => {
  // A change of every kind, each through its own form (the top-up now confirmed first): longer than one screen's test.
  test.setTimeout(120_000);
  const run = String(Date.now());
  const names = namesOf(run);
  const secret = `activity-secret-${run}`;
  const [{ last }] = (await query<{ last: string }>("SELECT coalesce(max(id), 0)::text AS last FROM activity_log")) as [{ last: string }];
  await signInAsStaff(page);
  await changeAnAccount(page, names);
  await changeCampaignsAndCatalogue(page, names);
  await changeAccessAndExports(page, names, secret);
  const windows = await changeVideoWindows(page);
  const [{ id: accountId }] = (await query<{ id: string }>("SELECT id FROM accounts WHERE name = $1", [names.account])) as [{ id: string }];

  // What each kind lists for this run: each action once, with a line of what it changed.
  const expected: Record<ActivityKind, Record<string, string[]>> = {
    "campaign.": {
      "campaign.created": [`Name: ${names.campaign}`, "Bid: USD 0.40", "Publishers: Demo Market"],
      // Its first ad started the draft.
      "campaign.status.set": ["Status: draft → active"],
    },
    "ad.": { "ad.created": [`Name: ${names.ad}`, "Type: product"] },
    "account.": {
      "account.created": [`Name: ${names.account}`, "Wallet balance: USD 100.00"],
      "account.wallet.topped_up": ["Wallet balance: USD 100.00 → USD 125.00"],
      "account.daily_budget.set": ["Daily budget: — → USD 30.00"],
    },
    "api_key.": { "api_key.created": [`Name: ${names.apiKey}`] },
    "oauth_client.": { "oauth_client.created": [`Name: ${names.oauthClient}`, "reports:read"] },
    "export_destination.": { "export_destination.created": [`Name: ${names.destination}`, "Bucket: tally-demo", "Access key: set"] },
    "product.": { "product.created": [`Name: ${names.product}`, `SKU: ${names.sku}`, "Price: USD 4.50"] },
    "catalogue.": { "catalogue.entry.set": [`Brand: ${names.account}`, `listed SKU ${names.sku} as ${names.account}'s in the catalogue of Demo Market`] },
    "attribution.": { "attribution.windows.set": [`Click window (days): ${windows.was} → ${windows.became}`] },
    "user.": { "user.invited": [`E-mail: ${names.invitee}`, "Role: viewer", `Demo Account Manager invited ${names.invitee} as viewer`] },
  };

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  const table = page.getByRole("table", { name: "Activity" });
  for (const [kind, actions] of Object.entries(expected) as [ActivityKind, Record<string, string[]>][]) {
    // The windows' subject is the campaign type's, the same whoever changes it; every other subject holds this run's marker.
    const text = kind === "attribution." ? "video campaigns" : run;
    if ((await page.getByLabel("Text").inputValue()) !== text) {
      await page.getByLabel("Text").fill(text);
      await page.getByRole("button", { name: "Filter" }).click();
      // The kind is added to the address as it is then: the text must be there first.
      await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(text);
    }
    await page.getByLabel("Kind of change").selectOption({ label: ACTIVITY_KINDS[kind] });
    await expect(page).toHaveURL(new RegExp(`kind=${kind.replace(".", "\\.")}`));
    for (const [action, lines] of Object.entries(actions)) {
      const row = table.locator(`tr[data-action="${action}"]`).filter({ hasText: lines[0] });
      await expect(row, `${action} under ${ACTIVITY_KINDS[kind]}`).toHaveCount(1);
      await expect(row).toContainText("staff@tally.local");
      for (const line of lines) await expect(row).toContainText(line);
    }
    // The brand a catalogue entry names reads by its name, never its id.
    if (kind === "catalogue.") await expect(table).not.toContainText(accountId);
    if (kind === "attribution.") {
      // The windows were set back: a second entry, the change undone, shown beside the first; one entry each.
      const undone = table.locator('tr[data-action="attribution.windows.set"]').filter({ hasText: `Click window (days): ${windows.became} → ${windows.was}` });
      await expect(undone).toHaveCount(1);
      const setWindows = await query<{ was: number; became: number }>(
        "SELECT (before->>'clickDays')::int AS was, (after->>'clickDays')::int AS became FROM activity_log WHERE id > $1::bigint AND action = 'attribution.windows.set' ORDER BY id",
        [last],
      );
      expect(setWindows).toEqual([windows, { was: windows.became, became: windows.was }]);
      continue;
    }
    // Everything else this run made is one row an action, and one entry an action in the table.
    await expect(table.locator("tbody tr")).toHaveCount(Object.keys(actions).length);
    const stored = await query<{ action: string; entries: number }>(
      "SELECT action, count(*)::int AS entries FROM activity_log WHERE id > $1::bigint AND action LIKE $2 AND subject LIKE $3 GROUP BY action ORDER BY action",
      [last, `${kind.replaceAll("_", "\\_")}%`, `%${run}%`],
    );
    expect(stored, `${ACTIVITY_KINDS[kind]} in activity_log`).toEqual(
      Object.keys(actions)
        .sort()
        .map((action) => ({ action, entries: 1 })),
    );
  }
  expect(await page.content()).not.toContain(secret);
});
