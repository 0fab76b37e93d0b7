// CORS for the /v1 routes: pages of any publisher's origin post to them, and `sendBeacon` sends
// credentials, so the request's Origin is reflected (never "*") with credentials allowed.
import type { HttpAnswer } from "./answer";

/** The CORS headers of an answer to a request that sent this Origin header. */
export function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return {};
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true", Vary: "Origin" };
}

/** Answer to an OPTIONS preflight: 204, good for a day. */
export function preflightAnswer(origin: string | null): HttpAnswer {
  return {
    status: 204,
    headers: {
      ...corsHeaders(origin),
      "Access-Control-Allow-Methods": "POST, OPTIONS",
      "Access-Control-Allow-Headers": "Content-Type, Accept",
      "Access-Control-Max-Age": "86400",
    },
    body: "",
  };
}
