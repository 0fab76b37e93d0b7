// Who is asking, as a network address: the key of the per-address rate limits, and (hashed) of
// the click-velocity rule. Forwarded headers are believed only as far as the operator says
// proxies stand in front (TALLY_TRUSTED_PROXY_HOPS): a client can write any X-Forwarded-For it
// likes, a proxy only appends.
import { createHmac } from "node:crypto";
import { isIPv4 } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "@/env";
import { boundedMemo } from "@/server/bounded-memo";

/**
 * The collector sets the connection's remote address on its requests under this key (a symbol,
 * so no header a client sends can pose as it). Next.js gives route handlers no socket.
 */
export const SOCKET_ADDRESS = Symbol.for("tally.socketAddress");

/**
 * The client's address. In the collector, the socket's (or, behind N trusted proxies, the Nth
 * X-Forwarded-For entry from the right). Under Next.js, the last entry (or the Nth from the right):
 * `next start` writes the socket's address there when no proxy did, and Vercel overwrites the
 * header with the client's. A `next start` reachable without a proxy in front would believe a
 * client's own header: docs/ingest.md says to put one in front.
 */
export function clientAddressOf(socket: string | undefined, forwardedFor: string | null, hops = env().TALLY_TRUSTED_PROXY_HOPS): string | null {
  if (socket !== undefined && hops === 0) return socket;
  const chain = (forwardedFor ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return chain[chain.length - Math.max(1, hops)] ?? socket ?? null;
}

/** clientAddressOf a Fetch Request: the socket's address only where the collector set it (SOCKET_ADDRESS). */
export function clientAddress(request: Request, hops = env().TALLY_TRUSTED_PROXY_HOPS): string | null {
  const socket = (request as unknown as Record<symbol, string | undefined>)[SOCKET_ADDRESS];
  return clientAddressOf(socket, request.headers.get("x-forwarded-for"), hops);
}

const IPV4_MAPPED = /^::ffff:/i;

/**
 * The key a limit counts an address under: an IPv4 address as it is (IPv4-mapped IPv6 included),
 * an IPv6 address by its /64, which one household or server is handed whole; anything that is not
 * an address (a misconfigured proxy's "unknown") as itself, cut to 64 characters.
 */
export function addressKey(address: string): string {
  // The common forms without ipaddr.js, whose parsing (twice per beacon: the limit, then the hash)
  // took 15 µs of the Next.js beacon route's 590 µs a request (bench/README.md): Node's isIPv4
  // accepts only the plain dotted form, which is its own key, and an IPv4 client of a dual-stack
  // socket ("::ffff:203.0.113.5", as `next start` reports the socket) is keyed by its IPv4 address.
  if (isIPv4(address)) return address;
  if (IPV4_MAPPED.test(address) && isIPv4(address.slice(7))) return address.slice(7);
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).toNormalizedString().split(":").slice(0, 4);
  return `${parts.join(":")}::/64`;
}

let hashKey: Buffer | undefined;

/**
 * A keyed hash of the address's key, stored with click events for the velocity rule: equal for
 * the same address, and no address can be read back from it (an unkeyed hash of the 2^32 IPv4
 * addresses would be reversed in seconds).
 */
export function clientAddressHash(address: string | null): string | null {
  return address === null ? null : recentHashOf(address);
}

export const RECENT_HASHES_LIMIT = 10_000;

/**
 * Hashes of the addresses seen lately. A page sends several beacons from one address (an
 * impression and a view for each ad, then clicks), and keeping them saved 2.6 µs of the
 * collector's CPU a beacon (bench/README.md, "The collector's lean path"). The memo holds no more
 * than the per-address rate limit already keeps in memory (addresses, for its window), is never
 * written anywhere, and starts over past RECENT_HASHES_LIMIT addresses (boundedMemo).
 */
const recentHashOf = boundedMemo(RECENT_HASHES_LIMIT, (address) => {
  hashKey ??= createHmac("sha256", env().TALLY_SECRETS_KEY).update("tally client address").digest();
  return createHmac("sha256", hashKey).update(addressKey(address)).digest().subarray(0, 12).toString("base64url");
});
