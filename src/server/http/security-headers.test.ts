import { describe, expect, it } from "vitest";
import { isMalformedPath, isPagePath, malformedPathResponse, NOTHING_RUNS, pageContentSecurityPolicy } from "./security-headers";

describe("a path that is not valid percent-encoding", () => {
  it("is one with a stray %, a cut escape or an escape of bytes that are not UTF-8", () => {
    for (const path of ["/v1/beacon/click/%E0%A4%A", "/dashboard/%", "/docs/%ZZ", "/campaign/%C0", "/demo/product/%FF", "/%"])
      expect(isMalformedPath(path)).toBe(true);
    for (const path of ["/", "/v1/beacon/click/abc.def.ghi", "/docs/caf%C3%A9", "/demo/product/A%2FB", "/%25"]) expect(isMalformedPath(path)).toBe(false);
  });

  it("gets Tally's JSON 400 on API paths, with CORS on /v1, and a plain page that runs nothing elsewhere", async () => {
    const api = malformedPathResponse("/v1/beacon/click/%E0%A4%A", "https://shop.example");
    expect(api.status).toBe(400);
    expect(api.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(await api.json()).toEqual({ error: { code: "bad_request", message: "the path is not valid percent-encoding" } });
    const report = malformedPathResponse("/campaign/%C0", null);
    expect(report.status).toBe(400);
    expect(report.headers.get("access-control-allow-origin")).toBeNull();
    expect(report.headers.get("content-type")).toBe("application/json");

    const page = malformedPathResponse("/docs/%ZZ", null);
    expect(page.status).toBe(400);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(NOTHING_RUNS);
    expect(await page.text()).toContain("<h1>Bad request</h1>");
  });
});

describe("pages and the rest", () => {
  it("tells pages from the /v1 routes, the API, the SDK, the report routes and Next's files", () => {
    for (const path of [
      "/",
      "/dashboard",
      "/dashboard/campaigns/x",
      "/sign-in",
      "/docs/ingest",
      "/demo",
      "/demo/product/X",
      "/advertisers",
      "/api-docs",
      "/docs/api",
      "/openapi.json.html",
    ])
      expect(isPagePath(path)).toBe(true);
    for (const path of [
      "/v1/ads",
      "/v1",
      "/api/health",
      "/sdk/tally.js",
      "/campaign/v2",
      "/ad/results/v2",
      "/report/network/publishers",
      "/_next/static/x.js",
      "/openapi.json",
      "/redoc/redoc.standalone.js",
    ])
      expect(isPagePath(path)).toBe(false);
  });
});

describe("a page's Content-Security-Policy", () => {
  it("lets scripts run only with the nonce or when loaded by one, and refuses frames, plugins, other bases and other form targets", () => {
    const policy = pageContentSecurityPolicy({ nonce: "bm9uY2U=", development: false, eventsOrigin: null });
    const directives = Object.fromEntries(policy.split("; ").map((part) => [part.split(" ")[0], part.split(" ").slice(1).join(" ")]));
    expect(directives).toEqual({
      "default-src": "'self'",
      "script-src": "'self' 'nonce-bm9uY2U=' 'strict-dynamic'",
      "style-src": "'self' 'nonce-bm9uY2U='",
      "style-src-attr": "'unsafe-inline'",
      "img-src": "'self' data: blob: https:",
      "media-src": "'self' https:",
      "font-src": "'self'",
      "connect-src": "'self'",
      "object-src": "'none'",
      "base-uri": "'self'",
      "form-action": "'self'",
      "frame-ancestors": "'none'",
    });
    expect(policy).not.toContain("unsafe-eval");
  });

  it("gives the API reference its search worker and no picture from elsewhere, and no other page either", () => {
    const reference = pageContentSecurityPolicy({ nonce: "n", development: false, eventsOrigin: null, pathname: "/docs/api" });
    expect(reference).toContain("worker-src blob:");
    expect(reference).toContain("img-src 'self' data:;");
    const other = pageContentSecurityPolicy({ nonce: "n", development: false, eventsOrigin: null, pathname: "/docs/reports" });
    expect(other).not.toContain("worker-src");
    expect(other).toContain("img-src 'self' data: blob: https:;");
  });

  it("lets pages post to an events host of its own, and gives next dev what it needs", () => {
    expect(pageContentSecurityPolicy({ nonce: "n", development: false, eventsOrigin: "https://events.tally.example" })).toContain(
      "connect-src 'self' https://events.tally.example;",
    );
    const development = pageContentSecurityPolicy({ nonce: "n", development: true, eventsOrigin: null });
    expect(development).toContain("script-src 'self' 'nonce-n' 'strict-dynamic' 'unsafe-eval';");
    expect(development).toContain("style-src 'self' 'unsafe-inline';");
  });
});
