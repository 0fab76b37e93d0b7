// The proxy as Next.js calls it: a page gets a policy with a fresh nonce, passed on to the render
// (Next.js reads it from the request's headers); an API path passes untouched; a malformed path
// is answered at once.
// The env module needs a database address it never contacts here.
process.env.DATABASE_URL ??= "postgresql://unit@localhost/unused";

import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { config, proxy } from "./proxy";

const call = (path: string, headers: Record<string, string> = {}) => proxy(new NextRequest(`http://tally.test${path}`, { headers }));

describe("the proxy", () => {
  it("gives a page a policy with a nonce new each time, and hands the same policy to the render", () => {
    const first = call("/dashboard");
    const second = call("/dashboard");
    const policy = first.headers.get("content-security-policy")!;
    expect(policy).toMatch(/^default-src 'self'; script-src 'self' 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'; /);
    expect(second.headers.get("content-security-policy")).not.toBe(policy);
    // NextResponse.next({ request }) carries the request's new headers this way.
    expect(first.headers.get("x-middleware-override-headers")).toContain("content-security-policy");
    expect(first.headers.get("x-middleware-request-content-security-policy")).toBe(policy);
    expect(first.headers.get("x-middleware-next")).toBe("1");
  });

  it("lets an API path with a valid escape through untouched, and answers a malformed one itself", async () => {
    const api = call("/v1/beacon/impression/%41");
    expect(api.headers.get("x-middleware-next")).toBe("1");
    expect(api.headers.get("content-security-policy")).toBeNull();
    const malformed = call("/v1/beacon/click/%E0%A4%A", { Origin: "https://shop.example" });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(await malformed.json()).toEqual({ error: { code: "bad_request", message: "the path is not valid percent-encoding" } });
    const page = call("/docs/%ZZ");
    expect(page.status).toBe(400);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("is matched for pages and for any path holding a %, never for a /v1 path without one", () => {
    const [pages, percent] = config.matcher as [{ source: string }, string];
    // The sources as Next.js compiles them: the path after the leading slash.
    const pageSource = new RegExp(`^/${pages.source.slice(2, -1)}$`);
    const percentSource = /^\/(.*%.*)$/;
    expect(percent).toBe("/(.*%.*)");
    for (const path of ["/", "/dashboard", "/docs/ingest", "/demo/product/X", "/sign-in", "/advertisers", "/dashboard/table-files"])
      expect(pageSource.test(path)).toBe(true);
    for (const path of [
      "/v1/ads",
      "/v1/beacon/impression/k.a.b",
      "/api/health",
      "/sdk/tally.js",
      "/campaign/v2",
      "/_next/static/x.js",
      "/favicon.ico",
      "/dashboard/table-file",
    ])
      expect(pageSource.test(path) || percentSource.test(path)).toBe(false);
    expect(percentSource.test("/v1/beacon/click/%E0%A4%A")).toBe(true);
  });
});
