import http from "node:http";
import https from "node:https";
import { describe, expect, it } from "vitest";
import { endpointHost, endpointProblem, forbiddenAddressReason, guardedAgents } from "./endpoint-guard";

describe("forbiddenAddressReason", () => {
  it("refuses every address that is not public unicast, in words", () => {
    expect(
      Object.fromEntries(
        [
          "127.0.0.1",
          "127.255.0.9",
          "10.1.2.3",
          "172.16.0.1",
          "172.31.255.254",
          "192.168.1.1",
          "169.254.169.254",
          "100.64.0.1",
          "0.0.0.0",
          "224.0.0.1",
          "255.255.255.255",
          "192.0.2.1",
          "198.18.0.1",
          "240.0.0.1",
          "::1",
          "::",
          "fd00::1",
          "fc00::5",
          "fe80::1",
          "ff02::1",
          "::ffff:127.0.0.1",
          "::ffff:a9fe:a9fe",
          "::ffff:10.0.0.1",
          "64:ff9b::a00:1",
          "2002:a00:1::",
          "2001:db8::1",
          "::7f00:1",
        ].map((address) => [address, forbiddenAddressReason(address)]),
      ),
    ).toEqual({
      "127.0.0.1": "a loopback address",
      "127.255.0.9": "a loopback address",
      "10.1.2.3": "a private network address (RFC 1918)",
      "172.16.0.1": "a private network address (RFC 1918)",
      "172.31.255.254": "a private network address (RFC 1918)",
      "192.168.1.1": "a private network address (RFC 1918)",
      "169.254.169.254": "a link-local address (where cloud metadata services answer)",
      "100.64.0.1": "a carrier-grade NAT address",
      "0.0.0.0": "an unspecified address",
      "224.0.0.1": "a multicast address",
      "255.255.255.255": "a broadcast address",
      "192.0.2.1": "a reserved address (reserved)",
      "198.18.0.1": "a reserved address (reserved)",
      "240.0.0.1": "a reserved address (reserved)",
      "::1": "a loopback address",
      "::": "an unspecified address",
      "fd00::1": "a private network address (IPv6 unique-local)",
      "fc00::5": "a private network address (IPv6 unique-local)",
      "fe80::1": "a link-local address (where cloud metadata services answer)",
      "ff02::1": "a multicast address",
      // IPv4 inside IPv6: mapped addresses are judged as the IPv4 address; NAT64, 6to4 and IPv4-compatible ones are refused.
      "::ffff:127.0.0.1": "a loopback address",
      "::ffff:a9fe:a9fe": "a link-local address (where cloud metadata services answer)",
      "::ffff:10.0.0.1": "a private network address (RFC 1918)",
      "64:ff9b::a00:1": "a reserved address (rfc6052)",
      "2002:a00:1::": "a reserved address (6to4)",
      "2001:db8::1": "a reserved address (reserved)",
      "::7f00:1": "a reserved address",
    });
  });

  it("lets public unicast addresses through", () => {
    for (const address of ["8.8.8.8", "52.216.8.1", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2a05:d018::1", "::ffff:8.8.8.8"]) {
      expect(forbiddenAddressReason(address)).toBeNull();
    }
  });
});

describe("endpointProblem", () => {
  it("sees literal addresses the way the connection does, whatever notation the URL uses", async () => {
    expect(endpointHost("http://2130706433:9000")).toBe("127.0.0.1");
    expect(endpointHost("http://0x7f.1/")).toBe("127.0.0.1");
    expect(endpointHost("http://0177.0.0.1")).toBe("127.0.0.1");
    expect(endpointHost("http://[::ffff:169.254.169.254]/")).toBe("::ffff:a9fe:a9fe");
    const problems = await Promise.all(
      ["http://2852039166/", "http://0xa9.0xfe.0xa9.0xfe", "https://[::ffff:169.254.169.254]:443", "http://0/", "http://[::1]:9000", "https://10.0.0.8"].map(
        (url) => endpointProblem(url, false),
      ),
    );
    expect(problems).toEqual([
      "must be a public address: 169.254.169.254 is a link-local address (where cloud metadata services answer)",
      "must be a public address: 169.254.169.254 is a link-local address (where cloud metadata services answer)",
      "must be a public address: ::ffff:a9fe:a9fe is a link-local address (where cloud metadata services answer)",
      "must be a public address: 0.0.0.0 is an unspecified address",
      "must be a public address: ::1 is a loopback address",
      "must be a public address: 10.0.0.8 is a private network address (RFC 1918)",
    ]);
  });

  it("resolves names, lets public addresses and AWS (no endpoint) through, and lets the operator allow private ones", async () => {
    expect(await endpointProblem("http://localhost:9000", false)).toMatch(
      /^must be a public address: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    expect(await endpointProblem("https://8.8.8.8", false)).toBeNull();
    expect(await endpointProblem(null, false)).toBeNull();
    expect(await endpointProblem("http://127.0.0.1:9000", true)).toBeNull();
    expect(await endpointProblem("http://localhost:9000", true)).toBeNull();
  });
});

describe("guardedAgents", () => {
  /** What a GET through the agents meets: an answer, or the error's code and message. */
  const get = (url: string, allowPrivate: boolean) =>
    new Promise<string>((resolve) => {
      const agents = guardedAgents(allowPrivate);
      const request = url.startsWith("https:") ? https.get(url, { agent: agents.httpsAgent }) : http.get(url, { agent: agents.httpAgent });
      request.on("response", () => resolve("answered"));
      request.on("error", (error: Error & { code?: string }) => resolve(`${error.code}: ${error.message}`));
      request.on("close", () => {
        agents.httpAgent.destroy();
        agents.httpsAgent.destroy();
      });
    });

  it("refuse to dial a non-public address, literal (no lookup) or resolved, over HTTP and HTTPS", async () => {
    expect(await get("http://127.0.0.1:1/", false)).toBe(
      "forbidden: the endpoint is not on the public internet: 127.0.0.1 is a loopback address; Tally connects only to public addresses",
    );
    expect(await get("https://[::1]:1/", false)).toBe(
      "forbidden: the endpoint is not on the public internet: ::1 is a loopback address; Tally connects only to public addresses",
    );
    expect(await get("https://localhost:1/", false)).toMatch(
      /^forbidden: the endpoint is not on the public internet: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    expect(await get("http://localhost:1/", false)).toMatch(/^forbidden: .*localhost resolves to/);
  });

  it("dial as usual when the operator allows private addresses (the closed port answers, not the guard)", async () => {
    for (const url of ["http://127.0.0.1:1/", "https://127.0.0.1:1/", "http://localhost:1/", "https://localhost:1/"]) {
      expect(await get(url, true)).toMatch(/^ECONNREFUSED/);
    }
  });
});
