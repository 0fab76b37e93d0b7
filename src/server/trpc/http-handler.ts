// The dashboard's tRPC endpoint over HTTP (/api/trpc/*), as a Fetch handler the route file exports:
// the viewer from the session cookie, the client's address for the sign-in limits, and the limits
// that keep one request small. A request body is counted while it is read (413 past 64 KiB, far
// above any dashboard form); a batch holds at most 10 calls; and auth.signIn is never batched, so
// one request is at most one password guess. The API serves the dashboard's own pages only: a
// request another site made a browser send is refused (403) before anything runs, with or
// without the session cookie, so neither a signed-in user's session nor a sign-in (to the
// sender's account) can be driven from elsewhere.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { SESSION_COOKIE, sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { TallyError } from "@/server/errors";
import { clientAddress } from "@/server/http/client-address";
import { readBodyWithin } from "@/server/http/read-json-body";
import { assertSameOrigin } from "@/server/http/request-origin";
import { errorResponse } from "@/server/http/respond";
import { appRouter } from "./root";

export const TRPC_ENDPOINT = "/api/trpc";
export const TRPC_BODY_LIMIT = 64 * 1024;
/** The dashboard's client batches at most this many calls too (src/app/trpc-client.tsx). */
export const TRPC_MAX_BATCH = 10;
const UNBATCHED = new Set(["auth.signIn"]);

/** The procedures a request calls, as tRPC reads them from its path. */
function calledPaths(url: URL): string[] {
  const path = url.pathname.slice(TRPC_ENDPOINT.length).replace(/^\/+|\/+$/g, "");
  return url.searchParams.get("batch") === "1" ? path.split(",") : [path];
}

export async function handleTrpcRequest(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request);
  } catch (error) {
    return errorResponse(error);
  }
  const url = new URL(request.url);
  const paths = calledPaths(url);
  if (paths.length > 1 && paths.some((path) => UNBATCHED.has(path))) {
    return errorResponse(new TallyError("bad_request", "auth.signIn cannot be batched: send it alone"));
  }
  let trpcRequest = request;
  if (request.method !== "GET" && request.method !== "HEAD") {
    try {
      const body = await readBodyWithin(request, TRPC_BODY_LIMIT);
      trpcRequest = new Request(request.url, { method: request.method, headers: request.headers, body: body as Uint8Array<ArrayBuffer> });
    } catch (error) {
      return errorResponse(error);
    }
  }
  const sessionToken = sessionTokenOf(request);
  const cookies: string[] = [];
  const secure = url.protocol === "https:" ? "; Secure" : "";
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: trpcRequest,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH,
    createContext: async () => ({
      viewer: await viewerOfSession(sessionToken),
      sessionToken,
      clientAddress: clientAddress(request),
      setSessionCookie: (token: string | null, expiresAt?: Date) => {
        cookies.push(
          token
            ? `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${secure}; Expires=${expiresAt!.toUTCString()}`
            : `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax${secure}; Max-Age=0`,
        );
      },
    }),
    responseMeta: () => ({ headers: cookies.length ? new Headers(cookies.map((cookie) => ["Set-Cookie", cookie] as [string, string])) : undefined }),
  });
}
