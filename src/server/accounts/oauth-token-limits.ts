// Limits of POST /oauth/token (docs/oauth.md, "Limits"). A client id is not a secret, so nothing
// a stranger does with it may spend its owner's allowance or lock the owner out:
// - wrong secrets per (client, source address): TALLY_OAUTH_TOKEN_FAILURES_PER_ADDRESS in 15
//   minutes, then that source alone is refused for the client until its window ends; a right
//   secret clears its source's failures. Failures are counted once their secret proved wrong, so
//   an owner's concurrent requests never hold each other back; wrong secrets sent at once from one
//   source all count when they end, and block it as long as fewer would (the secrets are 192
//   random bits: the limit bounds Tally's work and the noise, not a guess's odds);
// - wrong secrets per client from everywhere: past TALLY_OAUTH_TOKEN_FAILURES_PER_CLIENT in 15
//   minutes (a guess spread over many addresses), every source that has failed for the client in
//   its window is refused; a source with no failures still authenticates, so the owner gets in
//   while a botnet gets one guess an address;
// - right secrets per client: TALLY_OAUTH_TOKEN_REQUESTS_PER_MINUTE, a client asking for tokens
//   too often. Only requests that proved the secret count, so strangers cannot spend it.
// Everything is counted in Postgres (rate-limiter-flexible over rate_limits), for every process.
import { type RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { countOauthTokenRefusal, type OauthTokenLimit } from "@/server/core/counters";
import { postgresRateLimiter } from "@/server/db/rate-limit-store";
import { CLIENT_ID_PATTERN } from "./oauth-secrets";
import { type ClientCredentialsGrant, grantClientCredentials, issueAccessToken, verifyClientCredentials } from "./oauth-tokens";

export const TOKEN_REQUESTS_WINDOW_SECONDS = 60;
export const TOKEN_FAILURES_WINDOW_SECONDS = 15 * 60;

/** One of the endpoint's quotas, as the RateLimit fields name it. */
export interface TokenPolicy {
  name: "token-requests" | "token-failures" | "client-failures";
  quota: number;
  windowSeconds: number;
}

/** What one request left of a quota it was counted against. */
export interface TokenQuotaState {
  policy: TokenPolicy;
  remaining: number;
  /** Milliseconds before the quota's window starts again. */
  msBeforeReset: number;
}

export type LimitedGrant =
  | { refused: false; grant: ClientCredentialsGrant; policies: TokenPolicy[]; states: TokenQuotaState[] }
  | { refused: OauthTokenLimit; retryAfterMs: number; limit: number; policies: TokenPolicy[]; states: TokenQuotaState[] };

type Limiters = { requests: RateLimiterPostgres; sourceFailures: RateLimiterPostgres; clientFailures: RateLimiterPostgres };
const holder = globalThis as unknown as { tallyOauthTokenLimits?: Limiters };

function limiters(): Limiters {
  if (!holder.tallyOauthTokenLimits) {
    const config = env();
    holder.tallyOauthTokenLimits = {
      // Only the owner reaches it, so a spent window is refused from memory without a query.
      requests: postgresRateLimiter({
        points: config.TALLY_OAUTH_TOKEN_REQUESTS_PER_MINUTE,
        duration: TOKEN_REQUESTS_WINDOW_SECONDS,
        keyPrefix: "oauth-token",
        blockInMemory: true,
      }),
      sourceFailures: postgresRateLimiter({
        points: config.TALLY_OAUTH_TOKEN_FAILURES_PER_ADDRESS,
        duration: TOKEN_FAILURES_WINDOW_SECONDS,
        keyPrefix: "oauth-token-source",
      }),
      clientFailures: postgresRateLimiter({
        points: config.TALLY_OAUTH_TOKEN_FAILURES_PER_CLIENT,
        duration: TOKEN_FAILURES_WINDOW_SECONDS,
        keyPrefix: "oauth-token-client",
      }),
    };
  }
  return holder.tallyOauthTokenLimits;
}

/** Forgets the limiters (and their in-memory refusals) and re-reads the settings (tests change them). */
export function resetOauthTokenLimits(): void {
  holder.tallyOauthTokenLimits = undefined;
}

/** The endpoint's quotas, in the order the RateLimit-Policy field lists them. */
export function tokenPolicies(): TokenPolicy[] {
  const { requests, sourceFailures, clientFailures } = limiters();
  return [
    { name: "token-requests", quota: requests.points, windowSeconds: TOKEN_REQUESTS_WINDOW_SECONDS },
    { name: "token-failures", quota: sourceFailures.points, windowSeconds: TOKEN_FAILURES_WINDOW_SECONDS },
    { name: "client-failures", quota: clientFailures.points, windowSeconds: TOKEN_FAILURES_WINDOW_SECONDS },
  ];
}

/** Takes a point; the library rejects with the key's standing past the quota, which is returned as refused. */
async function take(limiter: RateLimiterPostgres, key: string): Promise<{ result: RateLimiterRes; refused: boolean }> {
  try {
    return { result: await limiter.consume(key), refused: false };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { result: rejection, refused: true };
  }
}

const stateOf = (policy: TokenPolicy, result: RateLimiterRes): TokenQuotaState => ({
  policy,
  remaining: Math.max(0, result.remainingPoints),
  msBeforeReset: result.msBeforeNext,
});

/**
 * grantClientCredentials within the endpoint's limits. `source` is the keyed hash of the
 * request's client address (clientAddressHash), null when unknown: every unknown address is one
 * source. An id not of a client's form is no client and is not counted (it would only fill the
 * limiter's table); it gets the same refusal as any wrong secret.
 */
export async function grantWithinLimits(
  request: { clientId: string; clientSecret: string; scope: string | null; source: string | null },
  now = new Date(),
): Promise<LimitedGrant> {
  const policies = tokenPolicies();
  const [requestsPolicy, sourcePolicy, clientPolicy] = policies as [TokenPolicy, TokenPolicy, TokenPolicy];
  if (!CLIENT_ID_PATTERN.test(request.clientId)) {
    return { refused: false, grant: await grantClientCredentials(request, now), policies: [], states: [] };
  }
  const { requests, sourceFailures, clientFailures } = limiters();
  const sourceKey = `${request.clientId} ${request.source ?? "unknown"}`;
  const refuse = (limit: OauthTokenLimit, state: TokenQuotaState): LimitedGrant => {
    countOauthTokenRefusal(limit);
    return { refused: limit, retryAfterMs: state.msBeforeReset, limit: state.policy.quota, policies, states: [state] };
  };

  const failures = await sourceFailures.get(sourceKey);
  if (failures && failures.consumedPoints >= sourceFailures.points) return refuse("address", stateOf(sourcePolicy, failures));
  if (failures) {
    const client = await clientFailures.get(request.clientId);
    if (client && client.consumedPoints >= clientFailures.points) return refuse("client", stateOf(clientPolicy, client));
  }

  const verified = await verifyClientCredentials(request);
  if (!verified.verified) {
    const [counted] = await Promise.all([sourceFailures.penalty(sourceKey), clientFailures.penalty(request.clientId)]);
    return { refused: false, grant: verified.refusal, policies, states: [stateOf(sourcePolicy, counted)] };
  }
  // The secret is right: this source starts afresh, and the request counts as the owner's.
  if (failures) await sourceFailures.delete(sourceKey);
  const counted = await take(requests, request.clientId);
  const requestsState = stateOf(requestsPolicy, counted.result);
  if (counted.refused) return refuse("requests", requestsState);
  return { refused: false, grant: await issueAccessToken(verified.client, request.scope, now), policies, states: [requestsState] };
}
