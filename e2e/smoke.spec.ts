import { expect, test } from "@playwright/test";
import { nextServerArgs } from "../src/cli/next-server";

test("the landing page says what Tally is and links to the dashboard, the demo store and the docs", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Tally counts every sponsored impression");
  for (const [name, href] of [
    ["Open the dashboard", "/dashboard"],
    ["Visit the demo store", "/demo"],
    ["Read the docs", "/docs"],
  ] as const) {
    await expect(page.getByRole("link", { name })).toHaveAttribute("href", href);
  }
  await page.getByRole("link", { name: "Read the docs" }).click();
  await expect(page.getByRole("heading", { name: "Documentation" })).toBeVisible();
  await expect(page.getByRole("link", { name: /Architecture/ })).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/screens/docs.png", fullPage: true });
});

test("pages carry Tally's icon, and the served docs link only to pages that answer", async ({ page, request }) => {
  await page.goto("/docs/conversions");
  // Tally's icon as SVG, and as the /favicon.ico browsers ask for on their own.
  const icons = await page.locator('link[rel="icon"]').evaluateAll((links) => links.map((link) => link.getAttribute("href")!));
  const types = await Promise.all(
    icons.map(async (href) => {
      const served = await request.get(href);
      expect(served.status(), href).toBe(200);
      return served.headers()["content-type"]!.split(";")[0];
    }),
  );
  expect(types.sort()).toEqual(["image/svg+xml", "image/x-icon"]);
  // Links written as repository files (`reports.md#limits`, `decisions/0028-….md`) lead to pages.
  const hrefs = await page.locator("main a[href^='/docs/']").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).getAttribute("href")!));
  expect(hrefs.length).toBeGreaterThan(3);
  for (const href of new Set(hrefs.map((h) => h.split("#")[0]!))) expect((await request.get(href)).status(), href).toBe(200);
  await page.goto("/docs/decisions/0012-verified-conversions");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});

test("health answers ok with the seeded database behind it, and nothing of its backlogs without the metrics token", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", store: "postgres" });
});

test("the /v1 routes answer a wrong method with the same JSON 405 as the collector", async ({ request }) => {
  for (const path of ["/v1/ads", "/v1/beacon/impression/some.token.here"]) {
    const response = await request.get(path);
    expect(response.status()).toBe(405);
    expect(response.headers().allow).toBe("POST, OPTIONS");
    expect(await response.json()).toEqual({ error: { code: "method_not_allowed", message: "use POST" } });
  }
});

test("a production server with a malformed DATABASE_URL stops at start with one clear line", async () => {
  const { spawnSync } = await import("node:child_process");
  const result = spawnSync(process.execPath, nextServerArgs("start", "--port", "0"), {
    env: { ...process.env, DATABASE_URL: "postgres:/no-host-here", NEXT_TELEMETRY_DISABLED: "1" },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain("tally: environment: DATABASE_URL must be a postgresql://user:password@host:port/database URL");
});
