import { describe, expect, it } from "vitest";
import { requestOrigin } from "./request-origin";

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("the origin a client used", () => {
  it("is the Host header, not the address the server is bound to", () => {
    expect(requestOrigin(request("http://0.0.0.0:3000/v1/ads", { host: "localhost:3000" }))).toBe("http://localhost:3000");
  });

  it("follows a proxy's forwarded host and scheme", () => {
    expect(requestOrigin(request("http://10.0.0.5:3001/v1/ads", { host: "10.0.0.5:3001", "x-forwarded-host": "events.shop.example", "x-forwarded-proto": "https" })))
      .toBe("https://events.shop.example");
    expect(requestOrigin(request("http://10.0.0.5/v1/ads", { "x-forwarded-host": "a.example, b.example" }))).toBe("http://a.example");
  });

  it("falls back to the request URL when the headers are missing or not a host", () => {
    expect(requestOrigin(request("http://tally.test/v1/ads"))).toBe("http://tally.test");
    expect(requestOrigin(request("http://tally.test/v1/ads", { host: "evil.example/path?x" }))).toBe("http://tally.test");
    expect(requestOrigin(request("http://tally.test/v1/ads", { host: "ok.example", "x-forwarded-proto": "javascript" }))).toBe("http://ok.example");
    expect(requestOrigin(request("http://tally.test/v1/ads", { host: "[::1]:3000" }))).toBe("http://[::1]:3000");
  });
});
