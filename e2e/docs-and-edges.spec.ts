// The edges a tester meets first: the API reference opens on the reference, with nothing refused or
// missing in the browser's console; its guide is a page of its own whose code blocks wrap or
// scroll; an API client at a wrong address gets a JSON 404 while a browser gets the page; and the
// browser's own request for /favicon.ico answers.
import { expect, type Page, test } from "@playwright/test";

/** Everything the page's console or network says went wrong: errors, refused or failed requests, 4xx and 5xx. */
function troubles(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") seen.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => seen.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    // Next's router prefetches the top links' pages and drops a prefetch it no longer needs: a
    // cancelled prefetch is the browser's choice, not a failure.
    const cancelledPrefetch = new URL(request.url()).searchParams.has("_rsc") && request.failure()?.errorText === "net::ERR_ABORTED";
    if (!cancelledPrefetch) seen.push(`failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) seen.push(`${response.status()}: ${response.url()}`);
  });
  return seen;
}

/** Code blocks whose text runs past their box with no way to scroll to it. */
const cutBlocks = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((blocks) =>
      blocks
        .filter((block) => block.scrollWidth > block.clientWidth + 1 && !["auto", "scroll"].includes(getComputedStyle(block).overflowX))
        .map((block) => (block.textContent ?? "").slice(0, 60)),
    );

test("/docs/api opens on the reference, links to its guide, and its console stays clean", async ({ page }) => {
  const seen = troubles(page);
  await page.goto("/docs/api");
  const title = page.getByRole("heading", { level: 1, name: /Tally API/ });
  await expect(title).toBeVisible({ timeout: 30_000 });
  // The first screen is the reference: its title sits near the top, under one line of links.
  const box = (await title.boundingBox())!;
  expect(box.y).toBeLessThan(200);
  await expect(page.getByRole("heading", { name: "Campaigns with their totals" }).first()).toBeVisible();
  // Let Redoc finish what it loads (its search worker, the sidebar's pictures) before reading the console.
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: "test-results/e2e/screens/api-reference-first-screen.png" });
  expect(await cutBlocks(page, "#reference pre")).toEqual([]);
  expect(seen).toEqual([]);

  await page.getByRole("link", { name: "The API guide" }).click();
  await expect(page).toHaveURL(/\/docs\/api-guide$/);
  await expect(page.getByRole("heading", { level: 1, name: "The machine API: the OpenAPI document and its reference" })).toBeVisible();
  expect(await cutBlocks(page, "main pre")).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await cutBlocks(page, "main pre")).toEqual([]);
  expect(seen).toEqual([]);
});

test("the docs index and other docs lead to the API guide at its own address", async ({ page, request }) => {
  await page.goto("/docs");
  await expect(page.getByRole("link", { name: "The machine API: the OpenAPI document and its reference" })).toHaveAttribute("href", "/docs/api-guide");
  await page.goto("/docs/oauth");
  await expect(page.locator('main a[href="/docs/api-guide"]').first()).toBeVisible();
  expect((await request.get("/docs/api-guide")).status()).toBe(200);
});

test("an API client at an address no route serves gets the JSON 404; a browser gets the page", async ({ request }) => {
  const bearer = { Authorization: "Bearer tly_not_a_real_key" };
  for (const [method, path] of [
    ["GET", "/report/nope"],
    ["GET", "/v1/nope"],
    ["POST", "/report/advertisers/nope"],
    ["GET", "/nope/deeper"],
  ] as const) {
    const answer = await request.fetch(path, { method, headers: bearer });
    expect(answer.status(), path).toBe(404);
    expect(answer.headers()["content-type"], path).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({ error: { code: "not_found", message: `no such route: ${method} ${path}` } });
  }
  const asked = await request.get("/report/nope", { headers: { Accept: "application/json" } });
  expect(asked.status()).toBe(404);
  expect(await asked.json()).toEqual({ error: { code: "not_found", message: "no such route: GET /report/nope" } });
  // A /v1 answer carries CORS, whatever its status.
  const fromPage = await request.get("/v1/nope", { headers: { ...bearer, Origin: "https://shop.example" } });
  expect(fromPage.headers()["access-control-allow-origin"]).toBe("https://shop.example");

  const browser = await request.get("/report/nope", { headers: { Accept: "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8" } });
  expect(browser.status()).toBe(404);
  expect(browser.headers()["content-type"]).toMatch(/^text\/html/);
  expect(await browser.text()).toContain("There is nothing at this address.");
  // A route that exists still answers as itself: a wrong key is a 401, not a 404.
  expect((await request.get("/campaign/v2", { headers: bearer })).status()).toBe(401);
});

test("/favicon.ico answers with Tally's icon", async ({ request }) => {
  const icon = await request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
  const bytes = await icon.body();
  // An ICO file: reserved 0, type 1, then at least one image.
  expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2)]).toEqual([0, 1]);
  expect(bytes.readUInt16LE(4)).toBeGreaterThan(0);
});
