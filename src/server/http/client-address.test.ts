// The hash's key comes from the environment, which needs a well-formed database URL (never contacted here).
process.env.DATABASE_URL ??= "postgresql://unit@localhost/unused";

import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  addressKey,
  clientAddress,
  clientAddressHash,
  clientAddressOf,
  clientAddressWarning,
  peerSource,
  RECENT_HASHES_LIMIT,
  SOCKET_ADDRESS,
} from "./client-address";
import { markPeerAddressStamped, PEER_ADDRESS_HEADER, stampPeerAddress } from "./peer-address";

/** A Fetch Request as a route sees it: X-Forwarded-For, a peer address header (whoever wrote it), the collector's socket. */
const request = (forwardedFor?: string, options: { socket?: string; peerHeader?: string } = {}) => {
  const headers: Record<string, string> = {};
  if (forwardedFor !== undefined) headers["X-Forwarded-For"] = forwardedFor;
  if (options.peerHeader !== undefined) headers[PEER_ADDRESS_HEADER] = options.peerHeader;
  const r = new Request("http://tally.test/v1/ads", { headers });
  if (options.socket !== undefined) Object.defineProperty(r, SOCKET_ADDRESS, { value: options.socket });
  return r;
};
const rotating = (n: number) => `203.0.113.${n % 250}, 198.51.100.${n % 200}`;

// The tests of a Next.js that is not Tally's server come first: marking the process (Tally's
// server does it at start) cannot be undone.
describe("client addresses at the collector", () => {
  it("believe the connection's own address with no proxy, whatever X-Forwarded-For a client writes", () => {
    expect(clientAddress(request("1.1.1.1", { socket: "203.0.113.5" }), 0, false)).toBe("203.0.113.5");
    expect(clientAddress(request(undefined, { socket: "203.0.113.5" }), 0, false)).toBe("203.0.113.5");
    expect(clientAddressOf("203.0.113.5", "1.1.1.1", 0)).toBe("203.0.113.5");
    const keys = new Set(Array.from({ length: 35 }, (_, n) => addressKey(clientAddressOf("203.0.113.5", rotating(n), 0)!)));
    expect([...keys]).toEqual(["203.0.113.5"]);
  });

  it("take the entry the trusted proxies appended, counted from the right, never one the client wrote before them", () => {
    expect(clientAddress(request("6.6.6.6, 198.51.100.1", { socket: "10.0.0.2" }), 1, false)).toBe("198.51.100.1");
    expect(clientAddress(request("6.6.6.6, 198.51.100.1, 10.0.0.9", { socket: "10.0.0.2" }), 2, false)).toBe("198.51.100.1");
    // A header shorter than the proxies: the request did not come through them, so the connection it came on.
    expect(clientAddressOf("10.0.0.2", "198.51.100.1", 2)).toBe("10.0.0.2");
    expect(clientAddressOf("10.0.0.2", null, 1)).toBe("10.0.0.2");
    expect(clientAddressOf(undefined, null, 1)).toBeNull();
  });
});

describe("client addresses under a Next.js that is not Tally's server", () => {
  it("know no address with no proxy configured: neither X-Forwarded-For nor a peer header a client wrote", () => {
    expect(peerSource(request("198.51.100.1"), false)).toBe("none");
    expect(clientAddress(request("6.6.6.6, 198.51.100.1"), 0, false)).toBeNull();
    expect(clientAddress(request("198.51.100.1", { peerHeader: "198.51.100.2" }), 0, false)).toBeNull();
    expect(clientAddress(request(undefined), 0, false)).toBeNull();
  });

  it("say so at start, unless a proxy is configured or Vercel writes the header", () => {
    expect(clientAddressWarning(0, false)).toContain("cannot tell clients' addresses apart");
    expect(clientAddressWarning(1, false)).toBeNull();
    expect(clientAddressWarning(0, true)).toBeNull();
  });

  it("believe a configured proxy's entry, counted from the right", () => {
    expect(clientAddress(request("6.6.6.6, 198.51.100.1"), 1, false)).toBe("198.51.100.1");
    expect(clientAddress(request("6.6.6.6, 198.51.100.1, 10.0.0.9"), 2, false)).toBe("198.51.100.1");
  });

  it("take on Vercel the address its proxy wrote over X-Forwarded-For, whatever the hops say", () => {
    expect(peerSource(request("198.51.100.1"), true)).toBe("vercel");
    expect(clientAddress(request("198.51.100.1"), 0, true)).toBe("198.51.100.1");
    expect(clientAddress(request("198.51.100.1"), 3, true)).toBe("198.51.100.1");
    expect(clientAddress(request(undefined, { peerHeader: "198.51.100.2" }), 0, true)).toBeNull();
  });
});

describe("client addresses under Tally's Next.js server", () => {
  it("believe the peer header the server wrote with no proxy, whatever X-Forwarded-For rotates through", () => {
    markPeerAddressStamped();
    expect(peerSource(request("198.51.100.1"), false)).toBe("tally-next-server");
    expect(clientAddressWarning(0, false)).toBeNull();
    expect(clientAddress(request("6.6.6.6", { peerHeader: "::ffff:127.0.0.1" }), 0, false)).toBe("::ffff:127.0.0.1");
    const hashes = new Set(Array.from({ length: 35 }, (_, n) => clientAddressHash(clientAddress(request(rotating(n), { peerHeader: "127.0.0.1" }), 0, false))));
    expect(hashes.size).toBe(1);
    // Behind a proxy, the proxy's entry; with none in the header, the connection's.
    expect(clientAddress(request("6.6.6.6, 198.51.100.1", { peerHeader: "10.0.0.2" }), 1, false)).toBe("198.51.100.1");
    expect(clientAddress(request(undefined, { peerHeader: "10.0.0.2" }), 1, false)).toBe("10.0.0.2");
  });

  it("write the connection's address over the header a client sends under the same name", async () => {
    const server = http.createServer((req, res) => {
      stampPeerAddress(req);
      res.end(JSON.stringify(req.headers[PEER_ADDRESS_HEADER]));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const seen = async (headers: Record<string, string>) => (await fetch(`http://127.0.0.1:${port}/`, { headers })).json();
      expect(await seen({})).toBe("127.0.0.1");
      expect(await seen({ [PEER_ADDRESS_HEADER]: "198.51.100.9", "X-Forwarded-For": "198.51.100.9" })).toBe("127.0.0.1");
      expect(await seen({ "X-Tally-Peer-Address": "198.51.100.9" })).toBe("127.0.0.1");
    } finally {
      server.close();
    }
  });
});

describe("address keys and hashes", () => {
  it("count IPv4 (mapped or not) as the address, IPv6 by its /64, and anything else as itself, cut short", () => {
    expect(addressKey("203.0.113.5")).toBe("203.0.113.5");
    expect(addressKey("::ffff:203.0.113.5")).toBe("203.0.113.5");
    expect(addressKey("::FFFF:203.0.113.5")).toBe("203.0.113.5");
    expect(addressKey("0:0:0:0:0:ffff:203.0.113.5")).toBe("203.0.113.5");
    expect(addressKey("::ffff:203.0.113.05")).toBe(addressKey("::ffff:203.0.113.5"));
    expect(addressKey("2001:db8:1:2:3:4:5:6")).toBe(addressKey("2001:db8:1:2::ffff"));
    expect(addressKey("2001:db8:1:2:3:4:5:6")).not.toBe(addressKey("2001:db8:1:3::1"));
    expect(addressKey("unknown")).toBe("unknown");
    expect(addressKey("x".repeat(500))).toHaveLength(64);
  });

  it("hash an address with a key: the same address the same hash, and nothing of the address in it", () => {
    const hash = clientAddressHash("203.0.113.5")!;
    expect(hash).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(clientAddressHash("::ffff:203.0.113.5")).toBe(hash);
    expect(clientAddressHash("203.0.113.6")).not.toBe(hash);
    expect(clientAddressHash(null)).toBeNull();
  });

  it("hash an address the same way once its remembered hash is forgotten, past the memo's limit", () => {
    const first = clientAddressHash("198.51.100.1");
    const v6 = clientAddressHash("2001:db8:1:2::7");
    const distinct = new Set<string>();
    for (let n = 0; n <= RECENT_HASHES_LIMIT; n += 1) distinct.add(clientAddressHash(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`)!);
    expect(distinct.size).toBe(RECENT_HASHES_LIMIT + 1);
    expect(clientAddressHash("198.51.100.1")).toBe(first);
    // The memo is keyed by the address as given; its hash is still of the address's /64.
    expect(clientAddressHash("2001:db8:1:2::8")).toBe(v6);
    expect(clientAddressHash("2001:db8:1:3::7")).not.toBe(v6);
  });
});
