import { describe, expect, it } from "vitest";
import { assertSameOrigin, requestOrigin } from "./request-origin";

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("the origin a client used", () => {
  it("is the Host header, not the address the server is bound to", () => {
    expect(requestOrigin(request("http://0.0.0.0:3000/v1/ads", { host: "localhost:3000" }))).toBe("http://localhost:3000");
  });

  it("follows a proxy's forwarded host and scheme", () => {
    expect(
      requestOrigin(request("http://10.0.0.5:3001/v1/ads", { host: "10.0.0.5:3001", "x-forwarded-host": "events.shop.example", "x-forwarded-proto": "https" })),
    ).toBe("https://events.shop.example");
    expect(requestOrigin(request("http://10.0.0.5/v1/ads", { "x-forwarded-host": "a.example, b.example" }))).toBe("http://a.example");
  });

  it("falls back to the request URL when the headers are missing or not a host", () => {
    expect(requestOrigin(request("http://tally.test/v1/ads"))).toBe("http://tally.test");
    expect(requestOrigin(request("http://tally.test/v1/ads", { host: "evil.example/path?x" }))).toBe("http://tally.test");
    expect(requestOrigin(request("http://tally.test/v1/ads", { host: "ok.example", "x-forwarded-proto": "javascript" }))).toBe("http://ok.example");
    expect(requestOrigin(request("http://tally.test/v1/ads", { host: "[::1]:3000" }))).toBe("http://[::1]:3000");
  });
});

describe("a request made from the dashboard's own origin", () => {
  const check = (url: string, headers: Record<string, string>) => () => assertSameOrigin(request(url, headers));

  it("passes for the dashboard's pages, a typed address or bookmark, and clients that send no metadata", () => {
    expect(check("http://0.0.0.0:3000/api/trpc/x", { host: "localhost:3000", "sec-fetch-site": "same-origin", origin: "http://localhost:3000" })).not.toThrow();
    expect(check("http://0.0.0.0:3000/campaign/c", { host: "localhost:3000", "sec-fetch-site": "none" })).not.toThrow();
    expect(check("http://tally.test/campaign/c", {})).not.toThrow();
    // Origins compare as origins: a default port and letter case do not make another origin.
    expect(
      check("https://10.0.0.5/x", {
        host: "10.0.0.5",
        "x-forwarded-host": "Tally.Example.com:443",
        "x-forwarded-proto": "https",
        origin: "https://tally.example.com",
      }),
    ).not.toThrow();
  });

  it("fails with 403 (forbidden) for other sites, sibling subdomains and other origins", () => {
    const refused: [string, Record<string, string>][] = [
      ["http://localhost:3000/x", { host: "localhost:3000", "sec-fetch-site": "cross-site" }],
      ["http://localhost:3000/x", { host: "localhost:3000", "sec-fetch-site": "same-site" }],
      ["http://localhost:3000/x", { host: "localhost:3000", "sec-fetch-site": "something-new" }],
      ["http://localhost:3000/x", { host: "localhost:3000", origin: "http://evil.example" }],
      ["http://localhost:3000/x", { host: "localhost:3000", origin: "null" }],
      ["http://localhost:3000/x", { host: "localhost:3000", "sec-fetch-site": "none", origin: "http://localhost:3001" }],
      // Behind a TLS proxy the dashboard's origin is https, as X-Forwarded-Proto says.
      ["http://10.0.0.5/x", { host: "10.0.0.5", "x-forwarded-host": "tally.example.com", "x-forwarded-proto": "https", origin: "http://tally.example.com" }],
    ];
    for (const [url, headers] of refused) {
      expect(check(url, headers), JSON.stringify(headers)).toThrow(expect.objectContaining({ code: "forbidden" }));
    }
  });
});
