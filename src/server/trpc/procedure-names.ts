// Which procedures an /api/trpc request names, read the way tRPC reads its path, for the one rule
// that must hold before tRPC runs anything: auth.signIn is never part of a batch, so one request
// is at most one password guess (http-handler.ts).
import { TallyError } from "@/server/core/errors";

/** tRPC's path prefix, served by src/app/api/trpc/[trpc]/route.ts. */
export const TRPC_ENDPOINT = "/api/trpc";
export const BATCHED_SIGN_IN = "auth.signIn cannot be batched: send it alone";
const UNBATCHED = "auth.signin";

/**
 * The procedures a request names, read as tRPC reads its path (everything after the endpoint,
 * percent-decoded, split at commas for a batch), and decoded again while that changes anything,
 * so no layering of escapes (`%2C`, `%252C`, `%2E`) hides a comma. Commas count whether or not the
 * request says `batch=1`: without it tRPC finds no procedure, so refusing loses nothing.
 * A path that is not valid percent-encoding is a bad request, as tRPC would answer it.
 */
export function namedProcedures(pathname: string): string[] {
  let path = pathname.startsWith(TRPC_ENDPOINT) ? pathname.slice(TRPC_ENDPOINT.length) : pathname;
  for (let round = 0; round < 5 && path.includes("%"); round += 1) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      throw new TallyError("bad_request", "the path is not valid percent-encoding");
    }
    if (decoded === path) break;
    path = decoded;
  }
  return path.replace(/^\/+|\/+$/g, "").split(",");
}

/**
 * Whether these procedure names, as a request gives them, put auth.signIn beside anything else.
 * Matched loosely on purpose (any case, slashes and white space around a name): a name tRPC would
 * not resolve costs nothing to refuse, and one it would must never slip through.
 */
export function batchesSignIn(names: string[]): boolean {
  if (names.length < 2) return false;
  return names.some((name) => name.replace(/^[\s/]+|[\s/]+$/g, "").toLowerCase() === UNBATCHED);
}
