// /api/trpc/*: the dashboard's tRPC endpoint. The viewer comes from the session cookie.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { SESSION_COOKIE, sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";

async function handler(request: Request): Promise<Response> {
  const sessionToken = sessionTokenOf(request);
  const cookies: string[] = [];
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: async () => ({
      viewer: await viewerOfSession(sessionToken),
      sessionToken,
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

export { handler as GET, handler as POST };
