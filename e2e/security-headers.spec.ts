// The pages under their Content-Security-Policy in a real browser: each carries the policy and the
// other security headers, hydrates and works (the sign-in form, the overview's charts, the demo
// store loading /sdk/tally.js and sending beacons), and the browser reports no violation. Markup
// injected into a page's HTML without its nonce does not run. The session cookie is Secure, and Chromium keeps
// it on http://127.0.0.1 (a loopback address is a secure context), so signing in works here.
import { expect, type Page, test } from "@playwright/test";
import { eventsOfSession, eventually } from "./database";
import { STAFF } from "./sign-in";

/** Every policy violation the page reports, from the first script on. */
async function watchPolicy(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { reportViolation: (text: string) => void }).reportViolation(
        `${event.violatedDirective} refused ${event.blockedURI || "inline"} at ${event.documentURI}`,
      );
    });
  });
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/** The security headers of a page's answer. */
async function expectPageHeaders(page: Page, path: string): Promise<void> {
  const response = await page.goto(path);
  const headers = response!.headers();
  const policy = headers["content-security-policy"]!;
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  for (const directive of ["object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"]) expect(policy).toContain(directive);
  expect(policy).not.toContain("unsafe-inline'; style-src");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["strict-transport-security"]).toMatch(/^max-age=\d+/);
}

test("the landing page, the docs and a missing page carry the headers, hydrate and report no violation", async ({ page }) => {
  const violations = await watchPolicy(page);
  await expectPageHeaders(page, "/");
  await page.getByRole("link", { name: "Read the docs" }).click();
  await expect(page.getByRole("heading", { name: "Documentation" })).toBeVisible();
  await page.getByRole("link", { name: /Architecture/ }).click();
  await expect(page).toHaveURL(/\/docs\/architecture$/);
  await expectPageHeaders(page, "/docs/ingest");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const missing = await page.goto("/no-such-page");
  expect(missing!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  // The navigation on the 404 page is hydrated: a click is a client-side navigation.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Docs" }).click();
  await expect(page.getByRole("heading", { name: "Documentation" })).toBeVisible();
  expect(violations).toEqual([]);
});

test("markup injected into a page's HTML without its nonce does not run, and the browser says so", async ({ page }) => {
  const violations = await watchPolicy(page);
  // As a stored or reflected injection would arrive: inside the server's own HTML, under its headers.
  await page.route("**/sign-in", async (route) => {
    const response = await route.fetch();
    const html = (await response.text()).replace(
      "</body>",
      '<script>window.injected = "script"</script><img src="/missing.png" onerror="window.injected = \'handler\'" alt=""></body>',
    );
    await route.fulfill({ response, body: html });
  });
  await page.goto("/sign-in");
  await expect.poll(() => violations.length).toBeGreaterThanOrEqual(2);
  expect(await page.evaluate(() => (window as unknown as { injected?: string }).injected)).toBeUndefined();
  // The page's own scripts still run: the form is hydrated.
  await page.getByLabel("E-mail").fill("nobody@tally.test");
  await page.getByLabel("Password").fill("wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /./ })).toHaveText("the e-mail or the password is wrong");
});

test("signing in works under the policy with a Secure session cookie, and the overview draws its charts", async ({ page, context }) => {
  const violations = await watchPolicy(page);
  await expectPageHeaders(page, "/sign-in");
  await page.getByLabel("E-mail").fill(STAFF.email);
  await page.getByLabel("Password").fill(STAFF.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  // Hydrated: the form posted through tRPC, never as a plain form carrying the password in the address.
  expect(page.url()).not.toContain("password");
  const cookie = (await context.cookies()).find((c) => c.name === "tally_session");
  expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: "Lax" });

  await page.getByLabel("Account").selectOption({ label: "Demo Market (publisher)" });
  // Impressions and clicks, spend and sales, and sales by the touch that won them.
  await expect(page.locator("figure.chart .recharts-wrapper")).toHaveCount(3);
  await expect(page.locator("figure.chart svg.recharts-surface").first()).toBeVisible();
  await expectPageHeaders(page, "/dashboard/campaigns");
  await expect(page.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
  // A page whose form checks its input with the server's zod schema, and the header's saved
  // views: zod compiles nothing there, so the policy refuses no eval.
  await expectPageHeaders(page, "/dashboard/api-keys");
  await page.getByRole("form", { name: "New API key" }).getByLabel("Name").fill(" ");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Name" })).toBeVisible();
  expect(violations).toEqual([]);
});

test("the demo store loads /sdk/tally.js and sends beacons under the policy", async ({ page }) => {
  const violations = await watchPolicy(page);
  await expectPageHeaders(page, "/demo");
  await expect(page.getByTestId("sponsored-ad").first()).toBeVisible();
  expect(await page.evaluate(() => typeof (window as unknown as { Tally?: unknown }).Tally)).toBe("object");
  const session = (await page.evaluate(() => window.localStorage.getItem("tally_sid")))!;
  const adIds = await page.locator("[data-ad-id]").evaluateAll((elements) => elements.map((el) => el.getAttribute("data-ad-id")!));
  const stored = await eventually(
    () => eventsOfSession(session),
    (events) => events.filter((event) => event.kind === "impression").length === adIds.length,
  );
  expect(stored.filter((event) => event.kind === "impression")).toHaveLength(adIds.length);
  // The store sells the demo publisher's products: not the dental brand another publisher lists.
  await expect(page.getByTestId("organic-result").filter({ hasText: "Acme Espresso Beans 1 kg" })).toHaveCount(1);
  await expect(page.getByTestId("organic-result").filter({ hasText: "Brightsmile" })).toHaveCount(0);
  expect(violations).toEqual([]);
});
