// The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names
// each quota a credential has (q requests in w seconds) and `RateLimit` says what is left of the
// quotas this request was counted against (r) and in how many seconds that count starts again (t),
// so a client can slow down before it meets a 429 instead of learning the limit from it.

export interface RatePolicy {
  /** The policy's name in both fields, e.g. "per-second". */
  name: string;
  quota: number;
  windowSeconds: number;
}

export interface RateState {
  policy: RatePolicy;
  remaining: number;
  /** Milliseconds until the policy's window starts again. */
  msBeforeReset: number;
}

/** What one counted request left of its credential's quotas. */
export interface RateOutcome {
  policies: readonly RatePolicy[];
  /** The quotas this request was counted against, in the policies' order. */
  states: readonly RateState[];
}

// Names are sf-strings (RFC 9651): quoted, so only printable ASCII without quote or backslash.
const policyName = (name: string) => `"${name.replace(/[^\x20-\x7e]|["\\]/g, "")}"`;
const wholeSeconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** The two header fields of an outcome, to add to the answer (a 429's included). */
export function rateLimitFields(outcome: RateOutcome): Record<string, string> {
  return {
    "RateLimit-Policy": outcome.policies.map((policy) => `${policyName(policy.name)};q=${policy.quota};w=${policy.windowSeconds}`).join(", "),
    RateLimit: outcome.states
      .map((state) => `${policyName(state.policy.name)};r=${Math.max(0, state.remaining)};t=${wholeSeconds(state.msBeforeReset)}`)
      .join(", "),
  };
}

/** Sets the fields on an answer already made; a Response whose headers are frozen is copied. */
export function withRateLimitFields(response: Response, fields: Record<string, string>): Response {
  try {
    for (const [name, value] of Object.entries(fields)) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of Object.entries(fields)) copy.headers.set(name, value);
    return copy;
  }
}
