// The hash's key comes from the environment, which needs a well-formed database URL (never contacted here).
process.env.DATABASE_URL ??= "postgresql://unit@localhost/unused";

import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, clientAddressHash, RECENT_HASHES_LIMIT, SOCKET_ADDRESS } from "./client-address";

const request = (forwardedFor?: string, socket?: string) => {
  const r = new Request("http://tally.test/v1/ads", { headers: forwardedFor === undefined ? {} : { "X-Forwarded-For": forwardedFor } });
  if (socket !== undefined) Object.defineProperty(r, SOCKET_ADDRESS, { value: socket });
  return r;
};

describe("client addresses", () => {
  it("believe the connection's own address in the collector, whatever X-Forwarded-For a client writes", () => {
    expect(clientAddress(request("1.1.1.1", "203.0.113.5"), 0)).toBe("203.0.113.5");
    expect(clientAddress(request(undefined, "203.0.113.5"), 0)).toBe("203.0.113.5");
  });

  it("take the entry the trusted proxies appended, counted from the right, never one the client wrote before them", () => {
    expect(clientAddress(request("6.6.6.6, 198.51.100.1", "10.0.0.2"), 1)).toBe("198.51.100.1");
    expect(clientAddress(request("6.6.6.6, 198.51.100.1, 10.0.0.9", "10.0.0.2"), 2)).toBe("198.51.100.1");
    // Under Next.js (no socket) the last entry is the one next start or Vercel wrote.
    expect(clientAddress(request("6.6.6.6, 198.51.100.1"), 0)).toBe("198.51.100.1");
    expect(clientAddress(request(undefined), 0)).toBeNull();
  });

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
