// The API reference page loads Redoc from Tally with the page's nonce, and only its policy lets a
// Worker start from a blob: URL (Redoc's search).
import { describe, expect, it } from "vitest";
import { handleApiReference } from "./openapi-routes";
import { pageContentSecurityPolicy } from "./security-headers";

describe("GET /docs/api", () => {
  const policy = pageContentSecurityPolicy({ nonce: "bm9uY2U=", development: false, eventsOrigin: null, pathname: "/docs/api" });

  it("loads Redoc from Tally with the request's nonce on every script and style, and renders /openapi.json", async () => {
    const response = handleApiReference(new Request("http://tally.test/docs/api", { headers: { "Content-Security-Policy": policy } }));
    const page = await response.text();
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(page).toContain('<script nonce="bm9uY2U=" src="/redoc/redoc.standalone.js"></script>');
    expect(page).toMatch(/<script nonce="bm9uY2U=">Redoc\.init\("\/openapi\.json", \{"nonce":"bm9uY2U="/);
    expect(page).toContain('<style nonce="bm9uY2U=">');
    // The reference comes first: above it only a line of links, one of them to the guide.
    expect(page).not.toContain("<h1");
    expect(page).toContain('<a href="/docs/api-guide">');
    expect(page).not.toMatch(/https?:\/\/(?!tally)/);
  });

  it("gets worker-src blob: in its policy, and no other page does", () => {
    expect(policy).toContain("worker-src blob:");
    expect(policy).toContain("style-src 'self' 'nonce-bm9uY2U='");
    for (const pathname of ["/", "/docs", "/docs/reports", "/dashboard"]) {
      expect(pageContentSecurityPolicy({ nonce: "x", development: false, eventsOrigin: null, pathname })).not.toContain("worker-src");
    }
  });
});
