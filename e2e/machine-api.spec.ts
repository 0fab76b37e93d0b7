// The machine API as an advertiser's tool meets it on the production server: the OpenAPI document
// and its reference page, an OAuth client made with `npm run oauth-clients` trading its secret for
// a token the way `curl -u id:secret -d grant_type=client_credentials` does, the report routes
// answering with RateLimit fields, and a report job that the server's own loop writes into the
// local S3, downloaded through its expiring address.
import { spawnSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { query } from "./database";

const E2E_DATABASE_URL = `postgresql://tally:tally@127.0.0.1:${Number(process.env.E2E_PG_PORT ?? 15439)}/tally`;

/** An OAuth client of the account, made by the CLI as an operator would: its id and secret. */
function createClient(accountId: string): { id: string; secret: string } {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli/oauth-clients.ts",
      "create",
      "--account",
      accountId,
      "--name",
      "warehouse",
      "--scope",
      "reports:read",
      "--scope",
      "reports:jobs",
    ],
    { env: { ...process.env, DATABASE_URL: E2E_DATABASE_URL, NODE_ENV: "development" }, encoding: "utf8", timeout: 60_000 },
  );
  expect(result.status, result.stderr).toBe(0);
  const id = /created OAuth client (tlc_\S+)/.exec(result.stdout)?.[1];
  const secret = /^(tls_\S+)$/m.exec(result.stdout)?.[1];
  expect(id && secret, result.stdout).toBeTruthy();
  return { id: id!, secret: secret! };
}

test("the OpenAPI document is 3.1 with every route, and /docs/api renders it offline", async ({ page, request }) => {
  const answer = await request.get("/openapi.json");
  expect(answer.status()).toBe(200);
  const document = (await answer.json()) as { openapi: string; paths: Record<string, unknown> };
  expect(document.openapi).toBe("3.1.0");
  for (const path of [
    "/v1/ads",
    "/v1/beacon/conversion",
    "/campaign/v2",
    "/campaign/{id}",
    "/report/advertisers/ads-detailed",
    "/oauth/token",
    "/report/jobs",
    "/report/jobs/{id}",
  ]) {
    expect(Object.keys(document.paths)).toContain(path);
  }

  // Nothing is fetched from elsewhere: Redoc's one outside picture (its maker's logo) is left out of
  // Tally's copy (src/sdk/build.ts), and the page's policy would refuse it before it left the browser.
  const outside: string[] = [];
  const refused: string[] = [];
  const isOutside = (url: string) => !/^(http:\/\/127\.0\.0\.1|blob:|data:)/.test(url);
  page.on("requestfinished", (sent) => {
    if (isOutside(sent.url())) outside.push(sent.url());
  });
  page.on("requestfailed", (sent) => {
    if (isOutside(sent.url())) refused.push(`${sent.url()} ${sent.failure()?.errorText}`);
  });
  const policy = (await request.get("/docs/api")).headers()["content-security-policy"]!;
  expect(policy).toContain("img-src 'self' data:;");
  expect(policy).toContain("worker-src blob:");
  await page.goto("/");
  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs\/api$/);
  await expect(page.getByRole("heading", { name: "Campaigns with their totals" }).first()).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: "test-results/e2e/screens/api-reference.png" });
  expect(outside).toEqual([]);
  for (const failure of refused) expect(failure).toMatch(/ csp$/);
});

test("a client's token reads /campaign/v2 with RateLimit fields, and a 400-day report job finishes into a file the download address serves", async ({
  request,
}) => {
  const [advertiser] = await query<{ id: string }>("SELECT id FROM accounts WHERE name = 'Northwind Outdoor'");
  const client = createClient(advertiser!.id);

  const granted = await request.post("/oauth/token", {
    headers: { Authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}` },
    form: { grant_type: "client_credentials" },
  });
  expect(granted.status()).toBe(200);
  const token = (await granted.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
  expect(token).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "reports:read reports:jobs" });
  const bearer = { Authorization: `Bearer ${token.access_token}` };

  // The routes read at most 366 days at once; a job reads 400. The demo's traffic is recent, so
  // both ranges hold the same campaigns.
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const [endDate, startDate] = [day(0), day(399)];
  const listed = await request.get(`/campaign/v2?start_date=${day(365)}&end_date=${endDate}&per_page=1000`, { headers: bearer });
  expect(listed.status()).toBe(200);
  expect(listed.headers()["ratelimit-policy"]).toMatch(/^"per-second";q=\d+;w=1, "burst";q=\d+;w=10$/);
  expect(listed.headers().ratelimit).toMatch(/^"per-second";r=\d+;t=\d+/);
  const rows = ((await listed.json()) as { data: { campaign_id: string }[] }).data;
  expect(rows.length).toBeGreaterThan(0);

  const created = await request.post("/report/jobs", {
    headers: bearer,
    data: { report: "campaigns", start_date: startDate, end_date: endDate, format: "jsonl" },
  });
  expect(created.status()).toBe(202);
  const location = created.headers().location!;
  expect(location).toMatch(/^\/report\/jobs\/rjob_/);

  let job: { status: string; download_url?: string; rows?: number } = { status: "queued" };
  const deadline = Date.now() + 90_000;
  while (job.status !== "done" && job.status !== "failed" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    job = ((await (await request.get(location, { headers: bearer })).json()) as { data: typeof job }).data;
  }
  expect(job.status).toBe("done");
  const file = await request.get(job.download_url!);
  expect(file.status()).toBe(200);
  const lines = (await file.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { campaign_id: string });
  expect(lines.map((line) => line.campaign_id).sort()).toEqual(rows.map((row) => row.campaign_id).sort());
});
