// The Set-Cookie line of the dashboard's session (src/server/accounts/sessions.ts holds the rules).
import { SESSION_COOKIE } from "@/server/accounts/sessions";

/**
 * Whether the session cookie carries Secure: always in production, whatever scheme the request
 * URL shows (behind a TLS proxy, and under `next start`, it says http); in development and tests
 * only over https, so a development server on plain http still signs in. NODE_ENV unset counts as
 * production, as in src/env.ts.
 */
export function secureCookies(nodeEnv: string | undefined, protocol: string): boolean {
  return !(nodeEnv === "development" || nodeEnv === "test") || protocol === "https:";
}

/** The cookie that sets a session (a token and its end) or clears it (null): http-only, SameSite=Lax. */
export function sessionCookie(token: string | null, expiresAt: Date | undefined, secure: boolean): string {
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
  return token && expiresAt ? `${SESSION_COOKIE}=${token}; ${attributes}; Expires=${expiresAt.toUTCString()}` : `${SESSION_COOKIE}=; ${attributes}; Max-Age=0`;
}
