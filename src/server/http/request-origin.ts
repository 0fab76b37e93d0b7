// The origin a client used to reach us. Behind Next.js or a proxy, `request.url` may carry the
// bind address (http://0.0.0.0:3000) or an internal host, which a browser cannot post beacons to;
// the Host header (or X-Forwarded-Host/-Proto from a proxy) is what the client actually asked for.
// Production sets TALLY_EVENTS_URL and does not depend on this.
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

const firstOf = (value: string | null) => value?.split(",")[0]?.trim() || undefined;

export function requestOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = firstOf(request.headers.get("x-forwarded-host")) ?? firstOf(request.headers.get("host"));
  const proto = firstOf(request.headers.get("x-forwarded-proto"));
  const scheme = proto === "https" || proto === "http" ? proto : url.protocol.slice(0, -1);
  return host && HOST.test(host) ? `${scheme}://${host}` : url.origin;
}
