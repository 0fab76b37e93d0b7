// The answer to an API client (a Bearer credential, or JSON asked for and not HTML) at a path no
// route serves: the JSON 404 of every other route rather than the dashboard's HTML page, which a
// script would have to parse to learn that its address is wrong. next.config.js sends such
// requests here only after every page and route failed to match (a fallback rewrite); browsers
// still get the not-found page.
import { TallyError } from "@/server/core/errors";
import { corsHeaders } from "./cors";
import { errorResponse } from "./respond";

/** The request's method and the path it asked for, which the rewrite hands over as `segments`. */
export function noSuchRouteResponse(request: Request, segments: readonly string[]): Response {
  const path = `/${segments.join("/")}`;
  // Every /v1 answer carries CORS, so a page of another origin can read this one too.
  const headers = path.startsWith("/v1/") ? corsHeaders(request.headers.get("origin")) : {};
  return errorResponse(new TallyError("not_found", `no such route: ${request.method} ${path}`), headers);
}
