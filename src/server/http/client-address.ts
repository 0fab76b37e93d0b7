// Who is asking, as a network address: the key of the per-address rate limits, and (hashed) of
// the click-velocity rule. Only what Tally or a trusted proxy wrote is believed: the connection's
// own address when no proxy stands in front (TALLY_TRUSTED_PROXY_HOPS=0), else the entry of
// X-Forwarded-For that the outermost trusted proxy appended. A client can write any header it
// likes; a proxy only appends.
import { createHmac } from "node:crypto";
import { isIPv4 } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "@/env";
import { boundedMemo } from "@/server/core/bounded-memo";
import { PEER_ADDRESS_HEADER, peerAddressStamped } from "./peer-address";

/**
 * The collector sets the connection's remote address on its requests under this key (a symbol,
 * so no header a client sends can pose as it). Next.js gives route handlers no socket: Tally's
 * Next.js server writes it into PEER_ADDRESS_HEADER instead (peer-address.ts).
 */
export const SOCKET_ADDRESS = Symbol.for("tally.socketAddress");

/**
 * The client's address from the connection's (`peer`: the socket's address, or undefined when
 * unknown) and the X-Forwarded-For header. With no trusted proxy, the connection's; behind `hops`
 * proxies that each append the address they were reached from, the `hops`th entry from the
 * right (whatever stands left of it the client wrote itself), or the connection's when the header
 * is shorter than that (the request did not come through the proxies).
 */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | null, hops = env().TALLY_TRUSTED_PROXY_HOPS): string | null {
  if (hops === 0) return peer ?? null;
  const chain = forwardedEntries(forwardedFor);
  return chain[chain.length - hops] ?? peer ?? null;
}

function forwardedEntries(forwardedFor: string | null): string[] {
  if (!forwardedFor) return [];
  return forwardedFor
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
}

/** Where a Fetch Request's connection address comes from, in the process that serves it. */
export type PeerSource = "collector" | "tally-next-server" | "vercel" | "none";

/**
 * How this process learns a Fetch Request's connection address: the collector's requests carry
 * it (SOCKET_ADDRESS), Tally's Next.js server writes it (PEER_ADDRESS_HEADER), Vercel's proxy
 * writes the client's into X-Forwarded-For; a Next.js started any other way has none.
 */
export function peerSource(request?: Request, onVercel = env().VERCEL): PeerSource {
  if (request && (request as unknown as Record<symbol, string | undefined>)[SOCKET_ADDRESS] !== undefined) return "collector";
  if (peerAddressStamped()) return "tally-next-server";
  return onVercel ? "vercel" : "none";
}

/**
 * clientAddressOf a Fetch Request, with its connection address from wherever this process has it
 * (peerSource). On Vercel, whose proxy overwrites X-Forwarded-For with the client's address, that
 * header's last entry, whatever TALLY_TRUSTED_PROXY_HOPS says. Under a Next.js that is not Tally's
 * server and no trusted proxy, null: nothing the request carries can be believed.
 */
export function clientAddress(request: Request, hops = env().TALLY_TRUSTED_PROXY_HOPS, onVercel = env().VERCEL): string | null {
  const forwardedFor = request.headers.get("x-forwarded-for");
  switch (peerSource(request, onVercel)) {
    case "collector":
      return clientAddressOf((request as unknown as Record<symbol, string>)[SOCKET_ADDRESS], forwardedFor, hops);
    case "tally-next-server":
      return clientAddressOf(request.headers.get(PEER_ADDRESS_HEADER) ?? undefined, forwardedFor, hops);
    case "vercel":
      return forwardedEntries(forwardedFor).at(-1) ?? null;
    case "none":
      return clientAddressOf(undefined, forwardedFor, hops);
  }
}

/**
 * What a Next.js server should say at start about client addresses: a warning when it can tell
 * no client apart (not Tally's server, not Vercel, no trusted proxy), null otherwise.
 */
export function clientAddressWarning(hops = env().TALLY_TRUSTED_PROXY_HOPS, onVercel = env().VERCEL): string | null {
  if (hops > 0 || peerSource(undefined, onVercel) !== "none") return null;
  return (
    "this Next.js server was not started as Tally's (npm start, src/cli/serve-next.ts) and TALLY_TRUSTED_PROXY_HOPS is 0: " +
    "it cannot tell clients' addresses apart, so the per-address rate limits and the click-velocity rule do not apply to its requests. " +
    'Start it with npm start, or set TALLY_TRUSTED_PROXY_HOPS to the proxies in front of it (docs/ingest.md, "Client addresses").'
  );
}

const IPV4_MAPPED = /^::ffff:/i;

/**
 * The key a limit counts an address under: an IPv4 address as it is (IPv4-mapped IPv6 included),
 * an IPv6 address by its /64, which one household or server is handed whole; anything that is not
 * an address (a misconfigured proxy's "unknown") as itself, cut to 64 characters.
 */
export function addressKey(address: string): string {
  // The common forms without ipaddr.js, whose parsing (twice per beacon: the limit, then the hash)
  // was a visible part of the Next.js beacon route's time (bench/results.md): Node's isIPv4
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
 * impression and a view for each ad, then clicks), and keeping them saved a measurable part of
 * the collector's CPU a beacon (bench/results.md). The memo holds no more
 * than the per-address rate limit already keeps in memory (addresses, for its window), is never
 * written anywhere, and starts over past RECENT_HASHES_LIMIT addresses (boundedMemo).
 */
const recentHashOf = boundedMemo(RECENT_HASHES_LIMIT, (address) => {
  hashKey ??= createHmac("sha256", env().TALLY_SECRETS_KEY).update("tally client address").digest();
  return createHmac("sha256", hashKey).update(addressKey(address)).digest().subarray(0, 12).toString("base64url");
});
