import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { eventsOfSession, eventually } from "./database";

const sessionOf = (page: Page) => page.evaluate(() => window.localStorage.getItem("tally_sid"));
const count = (events: { kind: string; ad_id: string }[], kind: string, adId?: string) =>
  events.filter((e) => e.kind === kind && (!adId || e.ad_id === adId)).length;

test("the demo store records one impression per rendered ad, a view for ads seen a second, and a click", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto("/demo");
  const ads = page.locator("[data-ad-id]");
  await expect(page.getByTestId("sponsored-ad").first()).toBeVisible();
  await expect(page.getByTestId("banner-ad")).toBeVisible();
  await expect(page.getByTestId("footer-banner-ad")).toHaveCount(1);
  const adIds = await ads.evaluateAll((elements) => elements.map((el) => el.getAttribute("data-ad-id")!));
  expect(adIds.length).toBeGreaterThanOrEqual(3);
  const session = (await sessionOf(page))!;
  expect(session).toBeTruthy();

  const afterRender = await eventually(
    () => eventsOfSession(session),
    (events) => count(events, "impression") === adIds.length,
  );
  expect(
    afterRender
      .filter((e) => e.kind === "impression")
      .map((e) => e.ad_id)
      .sort(),
  ).toEqual([...adIds].sort());
  expect(afterRender.every((e) => e.status === "counted")).toBe(true);
  await page.screenshot({ path: "test-results/e2e/screens/demo-search.png", fullPage: true });

  // The footer banner starts below the fold: half a second in view is not a view.
  const footer = page.getByTestId("footer-banner-ad");
  const footerAdId = (await footer.getAttribute("data-ad-id"))!;
  await footer.scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(1500);
  expect(count(await eventsOfSession(session), "view", footerAdId)).toBe(0);

  // More than a second in view is one view, and only one however long it stays.
  await footer.scrollIntoViewIfNeeded();
  await page.waitForTimeout(2500);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await footer.scrollIntoViewIfNeeded();
  await page.waitForTimeout(1500);
  const viewed = await eventually(
    () => eventsOfSession(session),
    (events) => count(events, "view", footerAdId) === 1,
  );
  expect(count(viewed, "view", footerAdId)).toBe(1);
  // The ads at the top were in view from the start.
  const topBanner = (await page.getByTestId("banner-ad").getAttribute("data-ad-id"))!;
  expect(count(viewed, "view", topBanner)).toBe(1);

  // A click on a sponsored product records a click, and navigation still happens.
  const product = page.getByTestId("sponsored-ad").first();
  const productAdId = (await product.getAttribute("data-ad-id"))!;
  await product.click();
  await page.waitForURL(/\/demo\/product\//);
  const clicked = await eventually(
    () => eventsOfSession(session),
    (events) => count(events, "click", productAdId) === 1,
  );
  expect(count(clicked, "click", productAdId)).toBe(1);
  await page.screenshot({ path: "test-results/e2e/screens/demo-product.png", fullPage: true });
});

test("a page on another origin sends sendBeacon with an application/json Blob, and it is stored", async ({ page, baseURL }) => {
  const sessionId = `xo-${Date.now()}`;
  // A publisher page on its own origin: loads the SDK from Tally, asks for ads, renders one.
  const html = `<!doctype html><html><body><div id="slot" style="width:728px;height:90px">ad</div><script src="${baseURL}/sdk/tally.js"></script>
<script>
  fetch("${baseURL}/v1/ads", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ publisher_id: "pub_demo_market", site: "demomarket.com", session_id: "${sessionId}", context: "home",
      placements: [{ name: "partner-banner", types: ["banner"], size: "728x90" }] }) })
    .then((r) => r.json())
    .then((answer) => { const ad = answer.ads["partner-banner"][0]; window.servedAd = ad;
      Tally.init({ sessionId: "${sessionId}" }).impression(ad); document.title = "sent"; });
</script></body></html>`;
  const publisherSite = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(html);
  });
  await new Promise<void>((resolve) => publisherSite.listen(0, "127.0.0.1", resolve));
  const origin = `http://localhost:${(publisherSite.address() as AddressInfo).port}`;
  try {
    const beaconRequest = page.waitForRequest((request) => request.url().includes("/v1/beacon/impression/") && request.method() === "POST");
    await page.goto(`${origin}/`);
    const request = await beaconRequest;
    const headers = await request.allHeaders();
    expect(headers["content-type"]).toBe("application/json");
    expect(headers.origin).toBe(origin);
    // Chromium reports navigator.sendBeacon requests as "ping" (fetch would be "fetch").
    expect(request.resourceType()).toBe("ping");
    const stored = await eventually(
      () => eventsOfSession(sessionId),
      (events) => events.length === 1,
    );
    expect(stored).toEqual([expect.objectContaining({ kind: "impression", status: "counted", placement_name: "partner-banner" })]);
  } finally {
    await new Promise((resolve) => publisherSite.close(resolve));
  }
});
