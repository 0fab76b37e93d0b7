// The dashboard's tRPC endpoint over HTTP (/api/trpc/*), as a Fetch handler the route file exports:
// the viewer from the session cookie, the client's address for the sign-in limits, and the limits
// that keep one request small. A request body is counted while it is read (413 past 64 KiB, far
// above any dashboard form); a batch holds at most 10 calls; and auth.signIn is never batched, so
// one request is at most one password guess. The API serves the dashboard's own pages only: a
// request another site made a browser send is refused (403) before anything runs, with or
// without the session cookie, so neither a signed-in user's session nor a sign-in (to the
// sender's account) can be driven from elsewhere.
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { env } from "@/env";
import { sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { clientAddress } from "@/server/http/client-address";
import { readBodyWithin } from "@/server/http/read-json-body";
import { assertSameOrigin, requestOrigin } from "@/server/http/request-origin";
import { errorResponse } from "@/server/http/respond";
import { secureCookies, sessionCookie } from "@/server/http/session-cookie";
import { BATCHED_SIGN_IN, batchesSignIn, namedProcedures, TRPC_ENDPOINT } from "./procedure-names";
import { appRouter } from "./root";

export { TRPC_ENDPOINT };
export const TRPC_BODY_LIMIT = 64 * 1024;
/** The dashboard's client batches at most this many calls too (src/app/trpc-client.tsx). */
export const TRPC_MAX_BATCH = 10;

export async function handleTrpcRequest(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request);
  } catch (error) {
    return errorResponse(error);
  }
  const url = new URL(request.url);
  try {
    if (batchesSignIn(namedProcedures(url.pathname))) throw new TallyError("bad_request", BATCHED_SIGN_IN);
  } catch (error) {
    return errorResponse(error);
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
  const secure = secureCookies(env().NODE_ENV, url.protocol);
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: trpcRequest,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH,
    createContext: async ({ info }) => {
      // tRPC's own reading of the request, after the check above: should the two ever disagree,
      // tRPC's decides, and no call of the batch runs.
      if (batchesSignIn(info.calls.map((call) => call.path))) throw new TRPCError({ code: "BAD_REQUEST", message: BATCHED_SIGN_IN });
      return {
        viewer: await viewerOfSession(sessionToken),
        sessionToken,
        clientAddress: clientAddress(request),
        origin: requestOrigin(request),
        setSessionCookie: (token: string | null, expiresAt?: Date) => {
          cookies.push(sessionCookie(token, expiresAt, secure));
        },
      };
    },
    responseMeta: ({ errors }) => {
      const headers = new Headers(cookies.map((cookie) => ["Set-Cookie", cookie] as [string, string]));
      // A call past a limit (figuresProcedure) says when to come back, as the routes' 429s do.
      const waits = errors.map((error) =>
        error.cause instanceof TallyError && error.cause.code === "too_many_requests" ? (error.cause.details?.retryAfterSeconds ?? 1) : 0,
      );
      const wait = Math.max(0, ...waits);
      if (wait > 0) headers.set("Retry-After", String(Math.ceil(wait)));
      for (const error of errors) {
        if (!(error.cause instanceof TallyError) || error.cause.code !== "too_many_requests") continue;
        for (const [name, value] of Object.entries(error.cause.details?.fields ?? {})) headers.set(name, value);
      }
      return { headers };
    },
  });
}
