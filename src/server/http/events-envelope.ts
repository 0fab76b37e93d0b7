// What every /v1 route does around its own work, with no transport in it: the Next.js routes
// (Fetch) and the collector's direct beacon path (node:http) both answer through this one wrapper.

import { type CountedRoute, countRequest } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { requestIdOf } from "@/server/core/log";
import type { HeaderReader, HttpAnswer } from "./answer";
import { corsHeaders, preflightAnswer } from "./cors";
import { limitAddress } from "./rate-limits";
import type { BodySource } from "./read-json-body";
import { errorAnswer } from "./respond";

/** What the wrapper reads of a request: a Fetch Request is one. */
export interface EventsRouteRequest {
  method: string;
  headers: HeaderReader;
}

/**
 * A /v1 request with no transport in it, as the transport-free handlers (beacons, conversions)
 * read it: each server builds one its own way (the Next.js routes from a Fetch Request in
 * events-routes.ts, the collector from an IncomingMessage in src/collector/direct-routes.ts).
 */
export interface PlainEventsRequest extends EventsRouteRequest, BodySource {
  /** The client's address (client-address.ts); null when unknown. */
  clientAddress: string | null;
}

/**
 * CORS, preflight, 405 for anything but POST, the per-address rate limit (before any body is
 * read), error answers, the request id (X-Request-Id, in the answer and in any error logged) and
 * the count of answers by route and outcome (/api/metrics) around a /v1 POST handler. `addressOf`
 * gives the client's address (client-address.ts), which each transport finds its own way.
 */
export function eventsRoute<R extends EventsRouteRequest>(
  route: CountedRoute,
  addressOf: (request: R) => string | null,
  handler: (request: R) => Promise<HttpAnswer>,
): (request: R) => Promise<HttpAnswer> {
  const answered = (answer: HttpAnswer) => {
    countRequest(route, answer.status);
    return answer;
  };
  return async (request) => {
    const origin = request.headers.get("origin");
    if (request.method === "OPTIONS") return preflightAnswer(origin);
    const cors = { ...corsHeaders(origin), "X-Request-Id": requestIdOf(request.headers.get("x-request-id")) };
    if (request.method !== "POST") {
      return answered(errorAnswer(new TallyError("method_not_allowed", "use POST"), { ...cors, Allow: "POST, OPTIONS" }));
    }
    try {
      // Nearly always answered from memory, with no promise to wait on (rate-limits.ts).
      const admission = limitAddress(addressOf(request));
      if (admission) await admission;
      const answer = await handler(request);
      // Handlers build a fresh answer per request, so its headers take the CORS ones in place.
      Object.assign(answer.headers, cors);
      return answered(answer);
    } catch (error) {
      return answered(errorAnswer(error, cors));
    }
  };
}
