import { expect, test } from "@playwright/test";
import ExcelJS from "exceljs";
import { query } from "./database";
import { readCsv, shownTable } from "./files";
import { signInAsStaff } from "./sign-in";

test("API keys: a key is shown once, works on the report routes, lists as a prefix and stops working when revoked", async ({ page, request }) => {
  await signInAsStaff(page);
  await page.getByRole("link", { name: "API keys" }).click();
  // The overview's own account picker is gone before this screen's is used.
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Acme Coffee (advertiser)" });
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.locator("main").getByRole("alert")).toHaveText("Name is required");
  await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill("Looker");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key").textContent())!;
  expect(key).toMatch(/^tly_[A-Za-z0-9_-]{32}$/);
  await expect(page.getByRole("cell", { name: `${key.slice(0, 10)}…` })).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-api-keys.png", fullPage: true });

  const listing = await request.get("/campaign/v2", { headers: { Authorization: `Bearer ${key}` } });
  expect(listing.status()).toBe(200);
  // Whatever traffic the demo has had (the checkout test's order among it): every campaign's
  // orders split into click- and view-through, and no more clicks converted than were made.
  const { data } = (await listing.json()) as { data: Record<string, number | null>[] };
  expect(data.length).toBeGreaterThan(0);
  for (const row of data) {
    expect(Number(row.conversions_click) + Number(row.conversions_view)).toBe(row.conversions_total);
    expect(row.click_conversion_rate === null || Number(row.click_conversion_rate) <= 1).toBe(true);
  }
  // After a reload the key itself is gone from the page for good.
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Acme Coffee (advertiser)" });
  await expect(page.getByRole("cell", { name: "Looker", exact: true })).toBeVisible();
  expect(await page.content()).not.toContain(key);

  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Revoke Looker" }).click();
  await expect(page.getByRole("cell", { name: /^revoked/ })).toBeVisible();
  expect((await request.get("/campaign/v2", { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(401);
});

test("OAuth clients: the secret is shown once, trades for a token that reads reports, and stops when rotated or revoked", async ({ page, request }) => {
  await signInAsStaff(page);
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Northwind Outdoor (advertiser)" });
  const section = page.getByRole("region", { name: "OAuth clients" });
  await section.getByRole("button", { name: "Create client" }).click();
  await expect(section.getByRole("alert")).toHaveText("Client name is required");
  await section.getByLabel("Client name").fill("Bid tool");
  await section.getByRole("button", { name: "Create client" }).click();
  const clientId = (await section.getByTestId("new-client-id").textContent())!;
  const secret = (await section.getByTestId("new-client-secret").textContent())!;
  expect(clientId).toMatch(/^tlc_[A-Za-z0-9_-]{22}$/);
  expect(secret).toMatch(/^tls_[A-Za-z0-9_-]{32}$/);
  await expect(section.getByRole("cell", { name: clientId })).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-oauth-clients.png", fullPage: true });

  const token = async (clientSecret: string) =>
    request.post("/oauth/token", {
      headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
      form: { grant_type: "client_credentials" },
    });
  const granted = await token(secret);
  expect(granted.status()).toBe(200);
  expect(granted.headers()["cache-control"]).toBe("no-store");
  const { access_token: accessToken, scope } = (await granted.json()) as { access_token: string; scope: string };
  expect(scope).toBe("reports:read");
  const reports = (bearer: string) => request.get("/campaign/v2", { headers: { Authorization: `Bearer ${bearer}` } });
  expect((await reports(accessToken)).status()).toBe(200);

  page.once("dialog", (dialog) => void dialog.accept());
  await section.getByRole("button", { name: "Rotate secret of Bid tool" }).click();
  await expect(section.getByTestId("new-client-secret")).not.toHaveText(secret);
  const newSecret = (await section.getByTestId("new-client-secret").textContent())!;
  expect(newSecret).toMatch(/^tls_[A-Za-z0-9_-]{32}$/);
  expect((await reports(accessToken)).status()).toBe(401);
  expect((await token(secret)).status()).toBe(401);
  const regranted = await token(newSecret);
  expect(regranted.status()).toBe(200);
  const newToken = ((await regranted.json()) as { access_token: string }).access_token;

  // After a reload the secret is gone from the page for good.
  await page.reload();
  await page.getByLabel("Account").selectOption({ label: "Northwind Outdoor (advertiser)" });
  await expect(section.getByRole("cell", { name: "Bid tool", exact: true })).toBeVisible();
  expect(await page.content()).not.toContain(newSecret);

  page.once("dialog", (dialog) => void dialog.accept());
  await section.getByRole("button", { name: "Revoke client Bid tool" }).click();
  await expect(section.getByRole("cell", { name: /^revoked/ })).toBeVisible();
  expect((await reports(newToken)).status()).toBe(401);
  expect((await token(newSecret)).status()).toBe(401);
});

test("exports: the demo bucket passes its connection test, run now delivers, and a new destination never shows its secret", async ({ page }) => {
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Exports" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Exports" })).toBeVisible();
  await page.getByLabel("Account").selectOption({ label: "Demo Market (publisher)" });
  const demo = page.getByRole("region", { name: "Destination Local demo bucket" });
  await demo.getByRole("button", { name: "Test connection" }).click();
  await expect(demo.getByText("Connection works: Tally wrote and deleted a test object.")).toBeVisible();
  await demo.getByRole("button", { name: "Run now" }).click();
  await expect(demo.getByText(/^Delivered \d+ of \d+ batches\.$/)).toBeVisible({ timeout: 30_000 });
  const history = demo.getByRole("table", { name: "Run history of Local demo bucket" });
  await expect(history.getByRole("row")).not.toHaveCount(1);
  await expect(history.getByText("succeeded").first()).toBeVisible();
  const [stored] = await query<{ runs: number; failed: number }>(
    "SELECT count(*)::int AS runs, count(*) FILTER (WHERE r.status <> 'succeeded')::int AS failed FROM export_runs r JOIN export_destinations d ON d.id = r.destination_id WHERE d.name = 'Local demo bucket'",
  );
  expect(stored!.runs).toBeGreaterThan(0);
  expect(stored!.failed).toBe(0);
  // The run history downloads as the rows shown: the latest 50 runs, with their stored row counts.
  const [csv] = await Promise.all([page.waitForEvent("download"), demo.getByRole("button", { name: "Download CSV" }).click()]);
  expect(csv.suggestedFilename()).toBe("export-runs.csv");
  const lines = (await readCsv((await csv.path())!)).filter((line) => line.some((cell) => cell !== ""));
  const { labels, rows } = await shownTable(history);
  // The moments' columns say in the file that they are UTC; the table writes them in the page's zone.
  const moments = ["Started", "From", "To", "Next attempt"];
  expect(lines[0]).toEqual(labels.map((label) => (moments.includes(label) ? `${label} (UTC)` : label)));
  const shownRuns = rows.length;
  expect(shownRuns).toBe(Math.min(stored!.runs, 50));
  expect(lines).toHaveLength(1 + shownRuns); // no totals: the runs' rows count different things
  const latest = await query<{ rows: string }>(
    `SELECT r.rows::text AS rows FROM export_runs r JOIN export_destinations d ON d.id = r.destination_id
      WHERE d.name = 'Local demo bucket' ORDER BY r.started_at DESC LIMIT ${shownRuns}`,
  );
  const byValue = (values: string[]) => [...values].sort((x, y) => Number(x) - Number(y));
  expect(byValue(lines.slice(1).map((line) => line[labels.indexOf("Rows")]!))).toEqual(byValue(latest.map((run) => run.rows)));
  const [xlsx] = await Promise.all([page.waitForEvent("download"), demo.getByRole("button", { name: "Download XLSX" }).click()]);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile((await xlsx.path())!);
  expect(workbook.worksheets[0]!.actualRowCount).toBe(1 + shownRuns);
  expect(workbook.worksheets[0]!.getRow(2).getCell(1).value).toBeInstanceOf(Date);
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-exports.png", fullPage: true });

  // A new destination on the same local S3: the form checks it with the server's schema first.
  const [{ endpoint }] = (await query<{ endpoint: string }>("SELECT endpoint FROM export_destinations WHERE name = 'Local demo bucket'")) as [
    { endpoint: string },
  ];
  await page.getByRole("button", { name: "Add a destination" }).click();
  const form = page.getByRole("form", { name: "Add destination" });
  await form.getByLabel("Name").fill("Second lake");
  await form.getByLabel("Bucket").fill("Bad_Bucket");
  await form.getByLabel("Endpoint (S3-compatible stores only)").fill(endpoint);
  await form.getByLabel("Path-style addresses").check();
  await form.getByLabel("Access key id").fill("S3RVER");
  await form.getByLabel("Secret access key").fill("S3RVER-second-lake-secret");
  await form.getByLabel("Columns of the daily CSV files").selectOption("extended");
  await form.getByRole("button", { name: "Add destination" }).click();
  await expect(form.getByText("Bucket must be an S3 bucket name")).toBeVisible();
  await form.getByLabel("Bucket").fill("tally-demo");
  await form.getByRole("button", { name: "Add destination" }).click();
  const second = page.getByRole("region", { name: "Destination Second lake" });
  await expect(second).toContainText("secret ••••••••");
  await expect(second).toContainText("extended CSV columns");
  expect(await query("SELECT 1 FROM export_destinations WHERE name = 'Second lake' AND aggregate_layout = 'extended'")).toHaveLength(1);
  expect(await page.content()).not.toContain("S3RVER-second-lake-secret");
  await second.getByRole("button", { name: "Edit" }).click();
  await expect(page.getByRole("form", { name: "Save changes" }).getByLabel("Secret access key")).toHaveValue("••••••••");
  await page.getByRole("form", { name: "Save changes" }).getByRole("button", { name: "Save changes" }).click();
  await second.getByRole("button", { name: "Test connection" }).click();
  await expect(second.getByText("Connection works: Tally wrote and deleted a test object.")).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-exports-390.png", fullPage: true });
});

test("settings: an account manager changes a campaign type's click and view windows, and the change is logged", async ({ page }) => {
  await signInAsStaff(page);
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  const display = page.getByRole("form", { name: "display campaigns" });
  await expect(display.getByLabel("Click window (days)")).toHaveValue("14");
  await expect(display.getByLabel("View window (days)")).toHaveValue("14");
  await display.getByLabel("Click window (days)").fill("120");
  await display.getByRole("button", { name: "Save" }).click();
  await expect(page.locator("main").getByRole("alert")).toHaveText("The display click window must be a whole number of days from 1 to 90");
  await display.getByLabel("Click window (days)").fill("7");
  await display.getByLabel("View window (days)").fill("1");
  await display.getByLabel("View-through credit").selectOption("views_only");
  await display.getByRole("button", { name: "Save" }).click();
  // The button is disabled while the save is under way as well as after it: wait for the row.
  const stored = async () =>
    (
      await query<{ click: number; view: number; through: string }>(
        "SELECT click_window_seconds AS click, view_window_seconds AS view, view_through::text AS through FROM attribution_windows WHERE campaign_type = 'display'",
      )
    )[0]!;
  await expect.poll(stored).toEqual({ click: 7 * 86_400, view: 86_400, through: "views_only" });
  await expect(display.getByRole("button", { name: "Save" })).toBeDisabled();
  const changes = page.getByRole("table", { name: "Recent changes" });
  await expect(changes.getByRole("row").nth(1)).toContainText("display campaigns");
  await expect(changes.getByRole("row").nth(1)).toContainText("click 7 d, view 1 d, views only");
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-settings.png", fullPage: true });
  // Back to the interface's 14 days for the tests that follow.
  await display.getByLabel("Click window (days)").fill("14");
  await display.getByLabel("View window (days)").fill("14");
  await display.getByLabel("View-through credit").selectOption("views_and_impressions");
  await display.getByRole("button", { name: "Save" }).click();
  await expect.poll(stored).toEqual({ click: 14 * 86_400, view: 14 * 86_400, through: "views_and_impressions" });
});

test("campaign page: the windows in force are named beside the figures, and an account manager gives the campaign its own", async ({ page }) => {
  await signInAsStaff(page);
  await page.goto("/dashboard/campaigns/cmp_northwind_display");
  const windows = page.getByRole("region", { name: "Attribution windows of this campaign" });
  await expect(windows).toContainText("latest click in the last 14 days (display campaigns' click window)");
  await windows.getByRole("button", { name: "Change this campaign's windows" }).click();
  const form = page.getByRole("form", { name: "This campaign's windows" });
  await form.getByLabel("Click window (days; blank: the type's)").fill("3");
  await form.getByRole("button", { name: "Save windows" }).click();
  await expect(windows).toContainText("latest click in the last 3 days (this campaign's own click window)");
  await expect(windows).toContainText("in the last 14 days (display campaigns' view window)");
  const own = async () =>
    (await query<{ click: number | null }>("SELECT click_window_seconds AS click FROM campaigns WHERE id = 'cmp_northwind_display'"))[0]!.click;
  expect(await own()).toBe(3 * 86_400);
  await windows.getByRole("button", { name: "Change this campaign's windows" }).click();
  await form.getByLabel("Click window (days; blank: the type's)").fill("");
  await form.getByRole("button", { name: "Save windows" }).click();
  await expect(windows).toContainText("latest click in the last 14 days (display campaigns' click window)");
  expect(await own()).toBeNull();
});

test("exports: a destination far behind says it holds raw rows past retention, and what it has lost", async ({ page }) => {
  // Created 200 days ago, delivered nothing since, waiting for its owner to fix its credentials.
  await query(
    `INSERT INTO export_destinations (id, account_id, name, bucket, region, credential_kind, access_key_id, types, status, status_reason, created_at, updated_at)
     SELECT 'dst_far_behind', id, 'Far behind lake', 'far-behind', 'us-east-1', 'access_key', 'AKIAEXAMPLE', '{ad_events,orders}', 'needs_attention',
            'The bucket refused the credentials.', now() - interval '200 days', now()
       FROM accounts WHERE name = 'Demo Market' ON CONFLICT (id) DO NOTHING`,
  );
  try {
    await signInAsStaff(page);
    await page.getByRole("link", { name: "Exports" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Exports" })).toBeVisible();
    await expect(
      page
        .getByRole("region", { name: /^Destination / })
        .or(page.getByText("No export destinations yet"))
        .first(),
    ).toBeVisible();
    await page.getByLabel("Account").selectOption({ label: "Demo Market (publisher)" });
    const far = page.getByRole("region", { name: "Destination Far behind lake" });
    const created = (
      await query<{ day: string }>("SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM export_destinations WHERE id = 'dst_far_behind'")
    )[0]!.day;
    const notice = far.getByRole("status").filter({ hasText: "Far behind" });
    await expect(notice).toContainText(`raw events and orders from ${created} 00:00 UTC on`);
    // 200 days behind is past retention (90) and the longest hold (60): the oldest rows are gone.
    await expect(notice).toContainText("the files of those hours will lack them");
    // A destination that keeps up says nothing of the kind.
    await expect(page.getByRole("region", { name: "Destination Local demo bucket" }).getByText("Far behind")).toHaveCount(0);
  } finally {
    await query("DELETE FROM export_destinations WHERE id = 'dst_far_behind'");
  }
});
