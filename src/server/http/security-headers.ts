// The security headers of the app's pages, and the answer to a path that is not valid
// percent-encoding; applied by src/proxy.ts, which runs for the pages (and for any path holding a
// "%"), never for the /v1 routes, the API or static files. Headers that are the same on every
// answer (nosniff, frame refusal, referrer policy, HSTS, the API's policy) are next.config.js's.
import { TallyError } from "@/server/core/errors";
import { corsHeaders } from "./cors";
import { errorResponse } from "./respond";

/**
 * Paths whose answers are API answers or files, not pages: the /v1 routes, /api, the SDK and
 * Next's static files, the OAuth token endpoint and the report routes (JSON and XLSX).
 * next.config.js gives them a policy that lets nothing run.
 */
const NOT_PAGES = /^\/(?:v1|api|sdk|redoc|oauth|campaign|ad|report|_next)(?:\/|$)|^\/openapi\.json$/;

/** The API reference (Redoc): its search index runs in a Worker made from a blob: URL. */
export const API_REFERENCE_PATH = "/docs/api";

export function isPagePath(pathname: string): boolean {
  return !NOT_PAGES.test(pathname);
}

/** Whether a request path holds a "%" that is not a valid escape of UTF-8. */
export function isMalformedPath(pathname: string): boolean {
  if (!pathname.includes("%")) return false;
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

/**
 * The Content-Security-Policy of a page, as strict as the App Router allows: scripts only with
 * this response's nonce (Next.js puts it on its own scripts when it finds it in the request's
 * policy), and what those load ('strict-dynamic': the demo store's <script src="/sdk/tally.js">);
 * style sheets from Tally or with the nonce, style attributes allowed (React and the charts set
 * them; they cannot run code); requests to Tally and to the events host; images from anywhere on
 * https (ads' media). Development adds what `next dev` needs: eval for React's debugging and
 * inline styles for its overlay. The API reference page alone may start a Worker from a blob: URL
 * (Redoc's search); its styles carry the nonce (Redoc's `nonce` option).
 */
export function pageContentSecurityPolicy(options: { nonce: string; development: boolean; eventsOrigin: string | null; pathname?: string }): string {
  const { nonce, development, eventsOrigin } = options;
  const connect = ["'self'", ...(eventsOrigin ? [eventsOrigin] : [])];
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    // The API reference shows no picture from elsewhere: Redoc's only one is its maker's logo on a CDN.
    options.pathname === API_REFERENCE_PATH ? "img-src 'self' data:" : "img-src 'self' data: blob: https:",
    "media-src 'self' https:",
    "font-src 'self'",
    `connect-src ${connect.join(" ")}`,
    ...(options.pathname === API_REFERENCE_PATH ? ["worker-src blob:"] : []),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const BAD_PATH = "the path is not valid percent-encoding";
/** The policy of an answer with nothing to run or load (next.config.js gives API answers the same). */
export const NOTHING_RUNS = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The answer to a path that is not valid percent-encoding, which Next.js would answer with a bare
 * 500: Tally's JSON error on API paths (with CORS on /v1, as every /v1 answer), a plain page
 * elsewhere. Nothing is routed, read or stored.
 */
export function malformedPathResponse(pathname: string, origin: string | null): Response {
  if (!isPagePath(pathname)) {
    return errorResponse(new TallyError("bad_request", BAD_PATH), pathname.startsWith("/v1/") ? corsHeaders(origin) : {});
  }
  const page =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bad request · Tally</title></head>' +
    '<body><h1>Bad request</h1><p>This address is not valid: it has a "%" that does not start an escape.</p><p><a href="/">Tally</a></p></body></html>';
  return new Response(page, {
    status: 400,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": NOTHING_RUNS },
  });
}
