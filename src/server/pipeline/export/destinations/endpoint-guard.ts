// A destination's endpoint is the tenant's to choose, so it must not become Tally's way into its
// own network (server-side request forgery): the cloud metadata service at 169.254.169.254, the
// database, an admin port on localhost. Checked twice:
//   - when a destination is saved, on the literal address or on what the name resolves to then,
//     for a message on the form's field;
//   - on every connection, in the HTTP agents' `lookup` (and, for literal addresses, which Node
//     connects to without a lookup, in `createConnection`): the address dialled is the address
//     checked, so a name that resolves to a public address when saved and to 10.0.0.1 later (DNS
//     rebinding) is still refused.
// Only public unicast addresses pass. The operator allows private ones with
// TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS=1 (the local S3 of `npm run dev` and the tests); this module
// is the one place that reads it.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type stream from "node:stream";
import ipaddr from "ipaddr.js";
import { env } from "@/env";
import { TallyError } from "@/server/core/errors";

/** Whether the operator lets endpoints reach loopback, private and link-local addresses. */
export const privateEndpointsAllowed = (): boolean => env().TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS;

// ipaddr.js's range names in words; any other named range is "reserved".
const RANGE_WORDS: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private network address (RFC 1918)",
  uniqueLocal: "a private network address (IPv6 unique-local)",
  linkLocal: "a link-local address (where cloud metadata services answer)",
  unspecified: "an unspecified address",
  carrierGradeNat: "a carrier-grade NAT address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
};

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * Why Tally must not connect to `address`, in words ("a loopback address"), or null for a public
 * unicast address. IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are judged as the IPv4 address
 * they carry; other IPv6 addresses must be global unicast (2000::/3) outside every special range
 * (NAT64, 6to4 and Teredo embed IPv4 addresses that could be private).
 */
export function forbiddenAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return "not an IP address";
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === "unicast") {
    if (parsed.kind() === "ipv6" && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return "a reserved address";
    return null;
  }
  return RANGE_WORDS[range] ?? `a reserved address (${range})`;
}

/** The host an endpoint URL connects to, as Node's URL normalises it (2130706433, 0x7f.1 and 0177.0.0.1 become 127.0.0.1; IPv6 loses its brackets). */
export function endpointHost(endpoint: string): string {
  const host = new URL(endpoint).hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The check when a destination is saved: null when the endpoint may be used, else the problem in
 * words for the `endpoint` field. A name that does not resolve now is let through: the connection
 * test says it cannot be reached, and every connection checks what it resolves to then.
 */
export async function endpointProblem(endpoint: string | null | undefined, allowPrivate: boolean): Promise<string | null> {
  if (!endpoint || allowPrivate) return null;
  const host = endpointHost(endpoint);
  if (net.isIP(host)) {
    const why = forbiddenAddressReason(host);
    return why ? `must be a public address: ${host} is ${why}` : null;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await Promise.race([
      dns.promises.lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("lookup timed out")), LOOKUP_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const why = forbiddenAddressReason(address);
    if (why) return `must be a public address: ${host} resolves to ${address}, ${why}`;
  }
  return null;
}

/** The error of a refused connection: describeS3Error (s3.ts) shows its message as it is. */
export function refusedConnection(host: string, address: string, why: string): TallyError {
  const what = host === address ? `${address} is ${why}` : `${host} resolves to ${address}, ${why}`;
  return new TallyError("forbidden", `the endpoint is not on the public internet: ${what}; Tally connects only to public addresses`);
}

export const isRefusedConnection = (error: unknown): error is TallyError => error instanceof TallyError && error.code === "forbidden";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * dns.lookup that refuses a name if any of its addresses is not public (rather than dialling the
 * public ones: a name that mixes them is not a storage service Tally should trust). With
 * `allowPrivate` it checks nothing, and the same code still carries every connection (so the
 * tests, which reach a local S3, go through it too).
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of allowPrivate ? [] : addresses) {
        const why = forbiddenAddressReason(address);
        if (why) return callback(refusedConnection(hostname, address, why) as unknown as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

// Node connects to a literal address without calling `lookup`: the agents check it themselves.
function literalRefusal(host: string | null | undefined): TallyError | null {
  if (!host) return null;
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (!net.isIP(bare)) return null;
  const why = forbiddenAddressReason(bare);
  return why ? refusedConnection(bare, bare, why) : null;
}

type ConnectionCallback = (error: Error | null, stream: stream.Duplex) => void;
type GuardedAgentOptions = http.AgentOptions & { allowPrivate: boolean };

class GuardedHttpAgent extends http.Agent {
  private readonly allowPrivate: boolean;

  constructor({ allowPrivate, ...options }: GuardedAgentOptions) {
    super(options);
    this.allowPrivate = allowPrivate;
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback): stream.Duplex | null | undefined {
    const refused = this.allowPrivate ? null : literalRefusal(options.host);
    if (!refused) return super.createConnection(options, callback);
    callback?.(refused, undefined as never);
    return undefined;
  }
}

class GuardedHttpsAgent extends https.Agent {
  private readonly allowPrivate: boolean;

  constructor({ allowPrivate, ...options }: GuardedAgentOptions) {
    super(options);
    this.allowPrivate = allowPrivate;
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback): stream.Duplex | null | undefined {
    const refused = this.allowPrivate ? null : literalRefusal(options.host);
    if (!refused) return super.createConnection(options, callback);
    callback?.(refused, undefined as never);
    return undefined;
  }
}

/** HTTP and HTTPS agents for the S3 client that connect to public addresses only (unless `allowPrivate`). */
export function guardedAgents(allowPrivate: boolean): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  // The SDK's own defaults: connections kept alive, at most 50 per host.
  const options = { keepAlive: true, maxSockets: 50, lookup: guardedLookup(allowPrivate) as unknown as net.LookupFunction, allowPrivate };
  return { httpAgent: new GuardedHttpAgent(options), httpsAgent: new GuardedHttpsAgent(options) };
}
