// The README's "First steps", as a newcomer follows them on a fresh install: sign in with the staff
// login the seed prints, make an API key for an advertiser and read a report with it, invite a
// user of that advertiser, join as them, and download their campaign list as XLSX: a file a
// reader Tally did not write (exceljs) opens, holding the campaigns the page shows, and no other
// advertiser's. Then every command the README prints for those steps, run as printed (but for the
// database's port, this server's), so the README cannot promise a command that fails.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { signInAsStaff } from "./sign-in";

const E2E_PG_PORT = Number(process.env.E2E_PG_PORT ?? 15439);
const README = readFileSync("README.md", "utf8");

/** A README command run in a shell from the repository, against this server's database instead of npm run dev's. */
function run(command: string): { status: number | null; stdout: string; stderr: string } {
  const local = command.replaceAll("127.0.0.1:54329", `127.0.0.1:${E2E_PG_PORT}`);
  // Only the database the command itself names: none of this process's own.
  const { DATABASE_URL: _, ...env } = process.env;
  return spawnSync("sh", ["-c", local], { env: env as NodeJS.ProcessEnv, encoding: "utf8", timeout: 120_000 });
}

/** The text of the README between a heading and the next one of its level or above. */
function section(heading: string): string {
  const start = README.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const rest = README.slice(start + heading.length);
  const end = rest.search(/\n#{1,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

test("a newcomer makes a key, invites a user of an advertiser, joins as them and downloads their campaign list as XLSX", async ({ page, browser, request }) => {
  // 1. The staff login, then an API key for Acme Coffee that reads the report routes.
  await signInAsStaff(page);
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Acme Coffee (advertiser)" });
  await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill("First steps");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key").textContent())!.trim();
  const campaigns = await request.get("/campaign/v2", { headers: { Authorization: `Bearer ${key}` } });
  expect(campaigns.status()).toBe(200);
  const viaKey = ((await campaigns.json()) as { data: { name: string }[] }).data.map((c) => c.name).sort();
  expect(viaKey.length).toBeGreaterThan(0);

  // 2. Invite a user of Acme Coffee: the link is shown to copy (no SMTP_URL here).
  await page.getByRole("link", { name: "Accounts" }).click();
  await page.getByRole("navigation", { name: "Accounts" }).getByRole("button", { name: "Acme Coffee" }).click();
  const team = page.getByRole("region", { name: "Account Acme Coffee" }).getByRole("region", { name: "Team" });
  const form = team.getByRole("form", { name: "Invite a user" });
  const email = `first-steps-${Date.now()}@acme.example`;
  await form.getByLabel("E-mail to invite").fill(email);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Invite" }).click();
  const link = (await team.getByTestId("invitation-link").textContent())!.trim();

  // 3. The invited person, in a browser of their own, joins and lands on their own overview.
  const theirs = await browser.newContext({ acceptDownloads: true });
  const them = await theirs.newPage();
  await them.goto(link);
  const accept = them.getByRole("form", { name: "Accept the invitation" });
  await accept.getByLabel("Name").fill("Ana Newcomer");
  await accept.getByLabel("Password (10 characters or more)").fill("first steps password");
  await accept.getByLabel("Password again").fill("first steps password");
  await accept.getByRole("button", { name: "Join and sign in" }).click();
  await expect(them.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();

  // 4. Their campaign list, downloaded as XLSX, holds what the page shows: Acme's campaigns only.
  await them.getByRole("link", { name: "Campaigns", exact: true }).click();
  await expect(them.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
  const table = them.getByRole("table", { name: /^Campaigns from/ });
  await expect(table.locator("tbody tr").first()).toBeVisible();
  const shown = (await table.locator("tbody tr th, tbody tr td:first-child").allTextContents()).map((name) => name.trim()).sort();
  expect(shown).toEqual(viaKey);
  const [download] = await Promise.all([them.waitForEvent("download"), them.getByRole("button", { name: "Download XLSX" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^campaigns-.*\.xlsx$/);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await download.path())!);
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1);
  expect(header[0]).toBe("Campaign");
  expect(header).toEqual(expect.arrayContaining(["Impressions", "CTR", "Spend"]));
  const names: string[] = [];
  let totals = 0;
  sheet.eachRow((row, number) => {
    const first = row.getCell(1).value;
    if (first === "Total") totals += 1;
    else if (number > 1 && typeof first === "string") names.push(first);
  });
  expect(names.sort()).toEqual(viaKey);
  // As the README's step 5 says: a totals row under two rows or more, none under one.
  expect(totals).toBe(viaKey.length >= 2 ? 1 : 0);
  await theirs.close();
});

test("every command the README's first steps and second terminal print works as printed", async ({ request }) => {
  const steps = section("### First steps");
  // The terminal's commands (`npm run dev` itself is the server these steps run against).
  const commands = [...steps.matchAll(/`(DATABASE_URL=\S+ NODE_ENV=development npm run [^`]+)`/g)].map((m) => m[1]!);
  expect(commands).toEqual([
    "DATABASE_URL=postgresql://tally:tally@127.0.0.1:54329/tally NODE_ENV=development npm run keys -- create --account adv_acme_coffee",
    "DATABASE_URL=postgresql://tally:tally@127.0.0.1:54329/tally NODE_ENV=development npm run users -- invite --account adv_acme_coffee --email buyer@acme.example --role viewer",
  ]);
  const created = run(commands[0]!);
  expect(created.status, created.stderr).toBe(0);
  const key = /^(tly_\S+)$/m.exec(created.stdout)?.[1];
  const keyId = /created API key (\S+)/.exec(created.stdout)?.[1];
  expect(key && keyId, created.stdout).toBeTruthy();
  // Step 2's curl, with the key it made, against this server.
  const curl = /`(curl -H "Authorization: Bearer tly_…" http:\/\/localhost:3000\/campaign\/v2)`/.exec(steps)?.[1];
  expect(curl).toBeTruthy();
  const base = test.info().project.use.baseURL!;
  const answer = run(`${curl!.replace("tly_…", key!).replace("http://localhost:3000", base)} --silent --write-out '\n%{http_code}'`);
  expect(answer.stdout.trim().split("\n").at(-1), answer.stderr).toBe("200");
  expect((await request.get("/campaign/v2", { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(200);

  const invited = run(commands[1]!);
  expect(invited.status, invited.stderr).toBe(0);
  expect(invited.stdout).toMatch(/\/invite\/\S+/);

  // The second terminal's lines: the export, then the list of Acme Coffee's keys, which holds the one just made.
  const block = /```sh\n(export DATABASE_URL=[^\n]+\nnpm run keys -- list [^\n]+)\n```/.exec(README)?.[1];
  expect(block).toBeTruthy();
  const listed = run(block!);
  expect(listed.status, listed.stderr).toBe(0);
  expect(listed.stdout).toContain(keyId!);
  // A command the paragraph under it prints whole, which only reads: the windows of each campaign type.
  const windows = /`(npm run attribution:window)` prints/.exec(README)?.[1];
  expect(windows).toBeTruthy();
  const printed = run(`${block!.split("\n")[0]}\n${windows}`);
  expect(printed.status, printed.stderr).toBe(0);
  expect(printed.stdout).toMatch(/display/);
});
