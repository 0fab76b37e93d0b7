// `npm run screens` (after `npm run build`): the screenshots in docs/screens/, made the same way
// every time. It starts the production build on a throwaway database with the demo seed and its
// 60 days of traffic, makes a few changes as the staff user (so the activity log has entries),
// then photographs the overview, the campaign list, a campaign page, an account's page and the
// activity log at 1440 and 390 px wide.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { freePort } from "./local/embedded-postgres";

const OUT = path.join(process.cwd(), "docs", "screens");
const STAFF = { email: "staff@tally.local", password: "tally-demo-staff" };
const WIDTHS = [1440, 390] as const;
const log = (line: string) => console.log(`screens: ${line}`);

async function startApp(port: number, pgPort: number): Promise<ChildProcess> {
  const app = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/app.ts", "start", "--ephemeral", "--no-s3", "--history", "60", "--port", String(port), "--pg-port", String(pgPort)],
    {
      env: { ...process.env, TALLY_DEMO: "1", CLICKHOUSE_URL: "", DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  app.stdout!.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.startsWith("tally: history") || line.startsWith("tally: starting")) log(line.slice(7));
  });
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (app.exitCode !== null) throw new Error(`the app stopped (${app.exitCode}) before answering`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return app;
    if (Date.now() > deadline) throw new Error("the app did not answer within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function signIn(page: Page): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("E-mail").fill(STAFF.email);
  await page.getByLabel("Password").fill(STAFF.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}

/** A few changes as the staff user, through the dashboard, so the activity log has something to show. */
async function makeChanges(page: Page): Promise<void> {
  await page.goto("/dashboard/campaigns/cmp_acme_sponsored/edit");
  await page.getByLabel("Daily budget").fill("60");
  await page.getByRole("spinbutton", { name: /^Bid per/ }).fill("0.45");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.waitForURL(/\/dashboard\/campaigns\/cmp_acme_sponsored$/);
}

const SHOTS = [
  { name: "overview", path: "/dashboard?account=adv_acme_coffee", ready: "Overview" },
  { name: "campaigns", path: "/dashboard/campaigns?account=adv_acme_coffee", ready: "Campaigns" },
  { name: "campaign", path: "/dashboard/campaigns/cmp_acme_sponsored", ready: "Acme Coffee: sponsored products" },
  { name: "account", path: "/dashboard/accounts?account=adv_acme_coffee", ready: "Accounts" },
  { name: "activity", path: "/dashboard/activity", ready: "Activity" },
] as const;

const port = await freePort();
const pgPort = await freePort();
log(`starting the production build on port ${port} with a throwaway database and 60 days of demo traffic`);
const app = await startApp(port, pgPort);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  await mkdir(OUT, { recursive: true });
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}` });
  const page = await context.newPage();
  await signIn(page);
  await makeChanges(page);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const shot of SHOTS) {
      await page.goto(shot.path);
      await page.getByRole("heading", { level: 1, name: shot.ready }).waitFor();
      await page.waitForLoadState("networkidle");
      const file = path.join(OUT, `${shot.name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      log(`wrote ${path.relative(process.cwd(), file)}`);
    }
  }
} finally {
  await browser.close();
  app.kill("SIGTERM");
  await new Promise((resolve) => app.once("exit", resolve));
}
