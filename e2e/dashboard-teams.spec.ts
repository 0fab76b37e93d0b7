import { expect, test } from "@playwright/test";
import { query } from "./database";
import { readCsv } from "./files";
import { signIn, signInAsStaff } from "./sign-in";

test("an account manager invites an advertiser's user, who sets a password through the link and sees only their account", async ({ page, browser }) => {
  const email = `buyer-${Date.now()}@acme.test`;
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Accounts" }).click();
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Acme Coffee" }).click();
  const team = page.getByRole("region", { name: "Account Acme Coffee" }).getByRole("region", { name: "Team" });
  await expect(team.getByRole("cell", { name: "acme@tally.local", exact: true })).toBeVisible();

  const form = team.getByRole("form", { name: "Invite a user" });
  await form.getByLabel("E-mail to invite").fill("not an e-mail");
  await form.getByRole("button", { name: "Invite" }).click();
  await expect(team.getByRole("alert")).toHaveText("E-mail must be an e-mail address");
  await form.getByLabel("E-mail to invite").fill(email);
  await form.getByLabel("Role").selectOption("admin");
  await form.getByRole("button", { name: "Invite" }).click();
  const link = (await team.getByTestId("invitation-link").textContent())!.trim();
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  await expect(team.getByRole("table", { name: "Open invitations" })).toContainText(email);
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-teams.png", fullPage: true });

  // The person invited, in a browser of their own.
  const invited = await browser.newContext();
  const invitedPage = await invited.newPage();
  await invitedPage.goto(link);
  await expect(invitedPage.getByRole("heading", { level: 1, name: "Join Tally" })).toBeVisible();
  await expect(invitedPage.getByText("You are invited to Acme Coffee")).toBeVisible();
  await expect(invitedPage.getByLabel("E-mail")).toHaveValue(email);
  const accept = invitedPage.getByRole("form", { name: "Accept the invitation" });
  await accept.getByLabel("Name").fill("Bea Buyer");
  await accept.getByLabel("Password (10 characters or more)").fill("a long enough password");
  await accept.getByLabel("Password again").fill("a different password");
  await accept.getByRole("button", { name: "Join and sign in" }).click();
  await expect(accept.getByRole("alert")).toHaveText("Password again does not match the password");
  await accept.getByLabel("Password again").fill("a long enough password");
  await accept.getByRole("button", { name: "Join and sign in" }).click();
  await expect(invitedPage.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

  await invitedPage.getByRole("link", { name: "Accounts" }).click();
  const accounts = invitedPage.getByRole("navigation", { name: "Accounts" });
  await expect(accounts.getByRole("listitem")).toHaveCount(1);
  await expect(accounts).toContainText("Acme Coffee");
  await invitedPage.screenshot({ path: "test-results/e2e/screens/dashboard-teams-invited.png", fullPage: true });

  const [user] = await query<{ role: string; member_role: string; account_id: string; name: string }>(
    "SELECT role::text, member_role::text, account_id, name FROM users WHERE email = $1",
    [email],
  );
  expect(user).toEqual({ role: "member", member_role: "admin", account_id: "adv_acme_coffee", name: "Bea Buyer" });
  const actions = await query<{ action: string }>("SELECT action FROM activity_log WHERE subject LIKE $1 ORDER BY id", [`%${email}%`]);
  expect(actions.map((a) => a.action)).toEqual(["user.invited", "user.joined"]);

  // The link works once.
  const again = await (await browser.newContext()).newPage();
  await again.goto(link);
  await expect(again.getByRole("main").getByRole("alert")).toHaveText("This invitation link is invalid or has expired. Ask whoever invited you for a new one.");
  await invited.close();
});

test("a viewer of an account reads and downloads its screens, and meets no form it may not use", async ({ page, browser }) => {
  const email = `reader-${Date.now()}@acme.test`;
  await signInAsStaff(page);
  await page.goto("/dashboard/accounts?account=adv_acme_coffee");
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Acme Coffee" }).click();
  const team = page.getByRole("region", { name: "Account Acme Coffee" }).getByRole("region", { name: "Team" });
  const form = team.getByRole("form", { name: "Invite a user" });
  await form.getByLabel("E-mail to invite").fill(email);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Invite" }).click();
  const link = (await team.getByTestId("invitation-link").textContent())!.trim();

  const context = await browser.newContext({ acceptDownloads: true });
  const reader = await context.newPage();
  await reader.goto(link);
  const accept = reader.getByRole("form", { name: "Accept the invitation" });
  await accept.getByLabel("Name").fill("Rita Reader");
  await accept.getByLabel("Password (10 characters or more)").fill("a long enough password");
  await accept.getByLabel("Password again").fill("a long enough password");
  await accept.getByRole("button", { name: "Join and sign in" }).click();
  await expect(reader.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(reader.getByText("account viewer (read only)")).toBeVisible();

  // The campaign list and a campaign's page: figures and downloads, no control that changes them.
  await reader.getByRole("link", { name: "Campaigns" }).click();
  await expect(reader.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
  await expect(reader.getByRole("button", { name: "Download XLSX" })).toBeVisible();
  await expect(reader.getByRole("link", { name: "New campaign" })).toHaveCount(0);
  await reader.getByRole("link", { name: "Acme Coffee: sponsored products" }).click();
  await expect(reader.getByRole("heading", { level: 1, name: "Acme Coffee: sponsored products" })).toBeVisible();
  await expect(reader.getByRole("table", { name: /^Ads of / })).toBeVisible();
  await expect(reader.getByRole("link", { name: "Edit", exact: true })).toHaveCount(0);
  await expect(reader.getByRole("button", { name: "New ad" })).toHaveCount(0);
  await expect(reader.getByRole("button", { name: /^(Pause|Resume|Activate)/ })).toHaveCount(0);
  await reader.goto("/dashboard/campaigns/cmp_acme_sponsored/edit");
  await expect(reader.getByText("You can read this campaign but not change it")).toBeVisible();
  await expect(reader.getByRole("button", { name: "Save changes" })).toHaveCount(0);

  // The account: its figures and products (as a file too), no budget or product form.
  await reader.getByRole("link", { name: "Accounts" }).click();
  const account = reader.getByRole("region", { name: "Account Acme Coffee" });
  await expect(account.getByText("You can read this account but not change it")).toBeVisible();
  // The team: read only, and who may change it, by name.
  const readOnlyTeam = account.getByRole("region", { name: "Team" });
  await expect(readOnlyTeam.getByRole("cell", { name: email, exact: true })).toBeVisible();
  await expect(readOnlyTeam.getByTestId("team-read-only")).toHaveText(
    /^You can read this team but not change it: its admins?, (.+, )?Acme Coffee Marketing( and .+)?, or Tally staff, invite people, change roles and remove users\.$/,
  );
  await expect(readOnlyTeam.getByRole("form", { name: "Invite a user" })).toHaveCount(0);
  await expect(readOnlyTeam.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
  await expect(readOnlyTeam.getByLabel(/^Role of /)).toHaveCount(0);
  await expect(account.getByRole("form", { name: "Daily budget" })).toHaveCount(0);
  await expect(account.getByRole("form", { name: "Add a product" })).toHaveCount(0);
  const products = account.getByRole("table", { name: "Products" });
  await expect(products).toContainText("ACME-BEANS-1KG");
  const shown = await products.locator("tbody tr").count();
  // The Products table's own download (the wallet's ledger above it has one too).
  const productsTable = account.locator(".data-table").filter({ has: reader.getByRole("table", { name: "Products" }) });
  const [csv] = await Promise.all([reader.waitForEvent("download"), productsTable.getByRole("button", { name: "Download CSV" }).click()]);
  expect(csv.suggestedFilename()).toMatch(/^products.*\.csv$/);
  const lines = (await readCsv((await csv.path())!)).filter((line) => line.some((cell) => cell !== ""));
  expect(lines[0]).toEqual(["Product", "SKU", "Category", "Price"]);
  expect(lines).toHaveLength(shown + 1);
  expect(lines.map((line) => line[1])).toContain("ACME-BEANS-1KG");

  // Keys and destinations: listed, never made or changed here.
  await reader.getByRole("link", { name: "API keys" }).click();
  await expect(reader.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await expect(reader.getByText("You can read this account's keys but not change it")).toBeVisible();
  await expect(reader.getByRole("form", { name: "New API key" })).toHaveCount(0);
  await expect(reader.getByRole("form", { name: "New OAuth client" })).toHaveCount(0);
  await reader.getByRole("link", { name: "Exports" }).click();
  await expect(reader.getByRole("heading", { level: 1, name: "Exports" })).toBeVisible();
  await expect(reader.getByRole("button", { name: "Add a destination" })).toHaveCount(0);
  await reader.screenshot({ path: "test-results/e2e/screens/dashboard-viewer.png", fullPage: true });

  // The server refuses the change a forged request would make, whatever the screens show.
  const origin = new URL(reader.url()).origin;
  const refused = await reader.request.post("/api/trpc/accounts.setDailyBudget", {
    headers: { origin },
    data: { json: { accountId: "adv_acme_coffee", dailyBudget: 1 } },
  });
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toContain("viewers of an account may not change it");
  const [acme] = await query<{ micros: string | null }>("SELECT daily_budget_micros::text AS micros FROM accounts WHERE id = 'adv_acme_coffee'");
  expect(acme!.micros).not.toBe("1000000");
  await context.close();
});

test("an account's admin, not staff, invites a teammate; the invitation shows, and the activity log says so in words", async ({ page }) => {
  const email = `mate-${Date.now()}@acme.test`;
  await signIn(page, "acme@tally.local", "tally-demo-advertiser");
  await page.getByRole("link", { name: "Accounts" }).click();
  const team = page.getByRole("region", { name: "Account Acme Coffee" }).getByRole("region", { name: "Team" });
  await expect(team.getByRole("cell", { name: "acme@tally.local", exact: true })).toBeVisible();
  await expect(team.getByTestId("team-read-only")).toHaveCount(0);

  const form = team.getByRole("form", { name: "Invite a user" });
  await form.getByLabel("E-mail to invite").fill(email);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Invite" }).click();
  await expect(team.getByTestId("invitation-link")).toHaveText(/\/invite\/[A-Za-z0-9_-]{43}$/);
  const invitations = team.getByRole("table", { name: "Open invitations" });
  await expect(invitations).toContainText(email);
  await expect(invitations.getByRole("button", { name: `Revoke the invitation of ${email}` })).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-teams-admin.png", fullPage: true });

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await page.getByLabel("Text").fill(email);
  await page.getByRole("button", { name: "Filter" }).click();
  const invited = page.getByRole("table", { name: "Activity" }).locator('tr[data-action="user.invited"]');
  await expect(invited).toHaveCount(1);
  await expect(invited).toContainText(`Acme Coffee Marketing invited ${email} as viewer`);
  await expect(invited).toContainText(`E-mail: ${email}`);
  await expect(invited.locator("time")).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-activity-in-words.png", fullPage: true });

  const [stored] = await query<{ account_id: string; invited_by: string | null }>(
    "SELECT i.account_id, u.email AS invited_by FROM user_invitations i LEFT JOIN users u ON u.id = i.invited_by WHERE i.email = $1",
    [email],
  );
  expect(stored).toEqual({ account_id: "adv_acme_coffee", invited_by: "acme@tally.local" });
});
