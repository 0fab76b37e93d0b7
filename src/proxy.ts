// Next.js's proxy (middleware), for two things only a per-request step can do: a fresh nonce in
// each page's Content-Security-Policy (src/server/http/security-headers.ts), and a clean 400 for
// a path that is not valid percent-encoding, where Next.js itself answers a bare 500 (it fails
// decoding a dynamic segment after this step has run). The matcher keeps it off the /v1 routes
// (the events host's hot path), the API and static files unless the path holds a "%" (a beacon's
// address never does), and off POST /dashboard/table-file, whose body Next.js would otherwise read
// whole (up to 10 MB) for this step before the route could refuse it; the router still tests
// every path against the matcher, a regular expression or two (docs/decisions/0039-web-hardening.md).
import { randomBytes } from "node:crypto";
import { type NextRequest, NextResponse } from "next/server";
import { env } from "@/env";
import { isMalformedPath, isPagePath, malformedPathResponse, pageContentSecurityPolicy } from "@/server/http/security-headers";

let eventsOrigin: string | null | undefined;

export function proxy(request: NextRequest): Response {
  // The path as sent: a URL keeps percent-escapes as they came, valid or not.
  const pathname = new URL(request.url).pathname;
  if (isMalformedPath(pathname)) return malformedPathResponse(pathname, request.headers.get("origin"));
  if (!isPagePath(pathname)) return NextResponse.next();
  const config = env();
  eventsOrigin ??= config.TALLY_EVENTS_URL ? new URL(config.TALLY_EVENTS_URL).origin : null;
  const policy = pageContentSecurityPolicy({
    nonce: randomBytes(16).toString("base64"),
    development: config.NODE_ENV === "development",
    eventsOrigin,
    pathname,
  });
  // Next.js reads the nonce from the request's policy and puts it on the scripts it renders.
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  matcher: [
    // Pages: everything but the /v1 routes, the API, the SDK, Redoc's script, OAuth, the API document, the report routes, the table files and Next's files;
    // a prefetch carries no document, so it needs no policy.
    {
      source: "/((?!(?:v1|api|sdk|redoc|oauth|campaign|ad|report|_next)(?:/|$)|dashboard/table-file$|favicon\\.ico$|openapi\\.json$).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
    // Any path holding a "%", wherever it points, to refuse one that is not valid percent-encoding.
    "/(.*%.*)",
  ],
};
