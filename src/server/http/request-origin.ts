// The origin a client used to reach us. Behind Next.js or a proxy, `request.url` may carry the
// bind address (http://0.0.0.0:3000) or an internal host, which a browser cannot post beacons to;
// the Host header (or X-Forwarded-Host/-Proto from a proxy) is what the client actually asked for.
// Production sets TALLY_EVENTS_URL and does not depend on this. The same origin tells the
// dashboard's own requests from those another site made a browser send (assertSameOrigin).
import { TallyError } from "@/server/core/errors";

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

const firstOf = (value: string | null) => value?.split(",")[0]?.trim() || undefined;

export function requestOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = firstOf(request.headers.get("x-forwarded-host")) ?? firstOf(request.headers.get("host"));
  const proto = firstOf(request.headers.get("x-forwarded-proto"));
  const scheme = proto === "https" || proto === "http" ? proto : url.protocol.slice(0, -1);
  return host && HOST.test(host) ? `${scheme}://${host}` : url.origin;
}

/** `Sec-Fetch-Site` values of a request the dashboard's own pages made, or a person by hand. */
const OWN_FETCH_SITES = new Set(["same-origin", "none"]);

const normalisedOrigin = (value: string): string | null => {
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
};

/**
 * Refuses (403) a request that another site or origin made a browser send. For requests the
 * dashboard's session cookie authenticates: SameSite=Lax still sends it on navigations from other
 * sites (a link to a download) and on requests from sibling subdomains (same-site), so the cookie
 * alone does not show that the dashboard asked. Browsers set Sec-Fetch-Site and Origin, and pages
 * cannot change them: `same-origin` is the dashboard, `none` an address typed or a bookmark. A
 * program (curl, a script) sends neither and is nobody's browser acting against their will.
 */
export function assertSameOrigin(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const crossSite = site !== null && !OWN_FETCH_SITES.has(site.trim().toLowerCase());
  if (crossSite || (origin !== null && normalisedOrigin(origin) !== normalisedOrigin(requestOrigin(request)))) {
    throw new TallyError("forbidden", "the dashboard's session works only on the dashboard's own pages: this request came from another site");
  }
}
