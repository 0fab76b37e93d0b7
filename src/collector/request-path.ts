// The path of a request target, as `new URL` would give it, without building a URL for the
// targets beacons use. A URL object and the strings it keeps were the largest single share of the
// garbage the collector made per beacon under the ingest benchmark (bench/results.md).

// request.url is only read for its path; addresses come from requestOrigin or TALLY_EVENTS_URL.
export const COLLECTOR_ORIGIN = "http://collector.local";

// Segments of unreserved characters (RFC 3986), none of them "." or "..": new URL neither
// re-encodes nor resolves anything in such a path, so it is its own pathname. Anything else (dot
// segments, backslashes, percent escapes, other characters, absolute-form targets) goes through
// new URL, which decides as before.
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*|\.[A-Za-z0-9_~-][A-Za-z0-9._~-]*|\.\.[A-Za-z0-9._~-]+|\/)*$/;

/** The pathname `new URL(COLLECTOR_ORIGIN + target)` has. */
export function pathnameOf(target: string): string {
  const query = target.indexOf("?");
  const path = query === -1 ? target : target.slice(0, query);
  return PLAIN_PATH.test(path) ? path : new URL(`${COLLECTOR_ORIGIN}${target}`).pathname;
}
