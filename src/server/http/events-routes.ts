// The events host's routes (/v1/...) as plain Fetch functions. The Next.js route handlers export
// them and the standalone collector (src/collector/) serves them, so both serve exactly the same
// code; beacons and conversions go through transport-free handlers (beacon-handler.ts,
// conversion-handler.ts), which the collector calls straight from node:http.
import { env } from "@/env";
import type { CountedRoute } from "@/server/core/counters";
import { parseAdQuery } from "@/server/pipeline/accept/ads/ad-query.schema";
import { queryAds } from "@/server/pipeline/accept/ads/query-ads";
import { answerResponse, type HttpAnswer, jsonAnswer } from "./answer";
import { beaconAddressOf, handleBeaconRequest } from "./beacon-handler";
import { clientAddress } from "./client-address";
import { handleConversionRequest } from "./conversion-handler";
import { eventsRoute, type PlainEventsRequest } from "./events-envelope";
import { limitPublisher } from "./rate-limits";
import { readBodyWithin, readJsonBody } from "./read-json-body";
import { requestOrigin } from "./request-origin";

export const AD_QUERY_BODY_LIMIT = 16 * 1024;

export const isConversionPath = (pathname: string) => pathname === "/v1/beacon/conversion" || pathname === "/v1/beacon/conversion/";

/** Every /v1/beacon/ path but the conversion route's: the beacon route answers it (404 for one that is no beacon address). */
export function isBeaconPath(pathname: string): boolean {
  return pathname.startsWith("/v1/beacon/") && !isConversionPath(pathname);
}

/** A /v1 POST handler of a Fetch Request, wrapped by eventsRoute, answering a Fetch Response. */
function fetchEventsRoute(route: CountedRoute, handler: (request: Request) => Promise<HttpAnswer>): (request: Request) => Promise<Response> {
  const wrapped = eventsRoute(route, (request: Request) => clientAddress(request), handler);
  return async (request) => answerResponse(await wrapped(request));
}

function hostOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

// POST /v1/ads: ads for a page's placements, each with signed beacon addresses.
export const handleAdQuery = fetchEventsRoute("ads", async (request) => {
  const query = parseAdQuery(await readJsonBody(request, AD_QUERY_BODY_LIMIT));
  await limitPublisher(query.publisher_id, clientAddress(request));
  const config = env();
  const answer = await queryAds({
    query,
    eventsUrl: config.TALLY_EVENTS_URL ?? requestOrigin(request),
    pageHost: hostOf(request.headers.get("origin")) ?? hostOf(request.headers.get("referer")),
    signingKey: config.BEACON_SIGNING_KEYS[0]!,
  });
  return jsonAnswer(200, answer, { "Cache-Control": "no-store" });
});

// POST /v1/beacon/{impression|view|click}/{token}: the Request adapted once to the beacon handler.
export async function handleBeacon(request: Request): Promise<Response> {
  return answerResponse(await handleBeaconRequest({ ...plainRequestOf(request), ...beaconAddressOf(new URL(request.url).pathname) }));
}

// POST /v1/beacon/conversion: the Request adapted once to the conversion handler.
export async function handleConversion(request: Request): Promise<Response> {
  return answerResponse(await handleConversionRequest(plainRequestOf(request)));
}

/** A Fetch Request as the transport-free handlers read it. */
function plainRequestOf(request: Request): PlainEventsRequest {
  return {
    method: request.method,
    headers: request.headers,
    clientAddress: clientAddress(request),
    readBody: (limit) => readBodyWithin(request, limit),
  };
}

/**
 * What the collector serves over Fetch, once beacons and conversions have gone to their direct
 * paths (src/collector/direct-routes.ts): the ad query, or 404.
 */
export function handleEventsRequest(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === "/v1/ads" || pathname === "/v1/ads/") return handleAdQuery(request);
  return Promise.resolve(Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 }));
}
