// POST /v1/beacon/{impression|view|click}/{token}, with no transport in it: the Next.js route
// adapts a Fetch Request to it (events-routes.ts), the collector an IncomingMessage
// (src/collector/direct-routes.ts), so both serve exactly the same rules and answers.
import { env } from "@/env";
import { verifyBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import type { HttpAnswer } from "./answer";
import { clientAddressHash } from "./client-address";
import { eventsRoute, type PlainEventsRequest } from "./events-envelope";
import { limitPublisher } from "./rate-limits";
import { readJson } from "./read-json-body";

export const BEACON_BODY_LIMIT = 16 * 1024;

export interface BeaconRequest extends PlainEventsRequest {
  /** The address's two segments (beaconAddressOf); a path of another shape gives empty ones, refused as an unknown address. */
  kind: string;
  token: string;
}

const BEACON_PATH = /^\/v1\/beacon\/([^/]+)\/([^/]+)\/?$/;

/** The kind and token of a beacon address's path. */
export function beaconAddressOf(pathname: string): { kind: string; token: string } {
  const match = BEACON_PATH.exec(pathname);
  return { kind: match?.[1] ?? "", token: match?.[2] ?? "" };
}

/** 202 once the event is stored; errors through respond.ts, CORS and the address limit through eventsRoute. */
export const handleBeaconRequest: (request: BeaconRequest) => Promise<HttpAnswer> = eventsRoute(
  "beacon",
  (request) => request.clientAddress,
  async (request) => {
    // The token is checked before the body is read: a forged address costs no more than that.
    const claims = verifyBeaconToken(request.token, request.kind, env().BEACON_SIGNING_KEYS);
    const admission = limitPublisher(claims.publisherId, request.clientAddress);
    if (admission) await admission;
    const body = await readJson(request, BEACON_BODY_LIMIT);
    await recordBeacon({ claims, body, userAgent: request.headers.get("user-agent"), clientHash: clientAddressHash(request.clientAddress) });
    // No body: docs/interface-decisions.md §2 allows an empty 202, and Next.js answers one without
    // its streaming path for bodies (measured: the route's throughput rises several points).
    return { status: 202, headers: { "Cache-Control": "no-store" }, body: "" };
  },
);
