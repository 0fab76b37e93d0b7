// Requests to POST /oauth/token per client id: TALLY_OAUTH_TOKEN_REQUESTS_PER_MINUTE, whatever
// their outcome, so guessing one client's secret is as slow as asking for its tokens too often.
// Counted in Postgres (rate-limiter-flexible over rate_limits) for every process together; past
// the limit the rest of the window is refused from this process's memory without a query.
import { RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { postgresRateLimiter } from "@/server/db/rate-limit-store";

export const TOKEN_REQUESTS_WINDOW_SECONDS = 60;

/** Where a client stands against the limit after this request: what rate limit headers say. */
export interface TokenRateLimitState {
  limit: number;
  windowSeconds: number;
  /** Requests left in the window. */
  remaining: number;
  /** Milliseconds before the window ends and the count starts again. */
  msBeforeNext: number;
  refused: boolean;
}

const holder = globalThis as unknown as { tallyOauthTokenLimiter?: ReturnType<typeof postgresRateLimiter> };

function limiter() {
  holder.tallyOauthTokenLimiter ??= postgresRateLimiter({
    points: env().TALLY_OAUTH_TOKEN_REQUESTS_PER_MINUTE,
    duration: TOKEN_REQUESTS_WINDOW_SECONDS,
    keyPrefix: "oauth-token",
    blockInMemory: true,
  });
  return holder.tallyOauthTokenLimiter;
}

/** Forgets the limiter (and its in-memory refusals) and re-reads the limit (tests change it). */
export function resetOauthTokenRateLimit(): void {
  holder.tallyOauthTokenLimiter = undefined;
}

/** Counts one token request of `clientId`; `refused` past the limit. */
export async function limitTokenRequest(clientId: string): Promise<TokenRateLimitState> {
  const rates = limiter();
  const state = (result: RateLimiterRes, refused: boolean): TokenRateLimitState => ({
    limit: rates.points,
    windowSeconds: TOKEN_REQUESTS_WINDOW_SECONDS,
    remaining: result.remainingPoints,
    msBeforeNext: result.msBeforeNext,
    refused,
  });
  try {
    return state(await rates.consume(clientId), false);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return state(rejection, true);
  }
}
