import { expect, test } from "@playwright/test";
import { query } from "./database";
import { signInAsStaff } from "./sign-in";

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
  await expect(again.getByRole("main").getByRole("alert")).toHaveText(
    "This invitation link is invalid or has expired. Ask your account manager for a new one.",
  );
  await invited.close();
});
