// Report requests per caller (an API key, an OAuth client, or a signed-in person for the
// dashboard's downloads): TALLY_REPORT_RATE_PER_SECOND, plus a burst of TALLY_REPORT_RATE_BURST
// over any 10 s, answered 429 with Retry-After past both. Counted in Postgres (rate-limiter-flexible
// over rate_limits), so a caller spreading its requests over many processes still meets one limit.
// That costs one upsert per request on the request pool (two once the second's allowance is spent);
// a caller over the limit is then refused from this process's memory until its window ends, so a
// flood costs no round trip at all. Every answer says where the caller stands (RateLimit fields).
import { RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { countReportRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { postgresRateLimiter } from "@/server/db/rate-limit-store";
import type { Requester } from "@/server/pipeline/report/download-slots";
import { type RateOutcome, type RatePolicy, rateLimitFields } from "./rate-limit-fields";

const BURST_WINDOW_SECONDS = 10;

interface Counter {
  consume(key: string): Promise<RateLimiterRes>;
}

interface Limits {
  policies: RatePolicy[];
  steady: { policy: RatePolicy; counter: Counter } | null;
  burst: { policy: RatePolicy; counter: Counter } | null;
}

const holder = globalThis as unknown as { tallyReportRateLimit?: Limits };

// Once the window's points are spent, later requests in it are refused here without a query.
const make = (points: number, duration: number, keyPrefix: string) => postgresRateLimiter({ points, duration, keyPrefix, blockInMemory: true });

function limits(): Limits {
  if (!holder.tallyReportRateLimit) {
    const { TALLY_REPORT_RATE_PER_SECOND: rate, TALLY_REPORT_RATE_BURST: burst } = env();
    const steadyPolicy = { name: "per-second", quota: rate, windowSeconds: 1 };
    const burstPolicy = { name: "burst", quota: burst, windowSeconds: BURST_WINDOW_SECONDS };
    const steady = rate === 0 ? null : { policy: steadyPolicy, counter: make(rate, 1, "report-rate") };
    const bursty = steady && burst > 0 ? { policy: burstPolicy, counter: make(burst, BURST_WINDOW_SECONDS, "report-burst") } : null;
    holder.tallyReportRateLimit = { policies: [steady?.policy, bursty?.policy].filter((policy) => policy !== undefined), steady, burst: bursty };
  }
  return holder.tallyReportRateLimit;
}

/** Forgets the limiter (and its in-memory refusals) and re-reads the limits (tests change them). */
export function resetReportRateLimit(): void {
  holder.tallyReportRateLimit = undefined;
}

/** What counting one request decided: the RateLimit fields for the answer, and the 429 past the limit. */
export interface ReportRateDecision {
  fields: Record<string, string>;
  refusal: TallyError | null;
}

const state = (policy: RatePolicy, result: RateLimiterRes) => ({ policy, remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext });

async function counted(counter: Counter, key: string): Promise<{ allowed: boolean; result: RateLimiterRes }> {
  try {
    return { allowed: true, result: await counter.consume(key) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { allowed: false, result: rejection };
  }
}

/**
 * Counts one report request of `requester`: the burst is spent only once the second's allowance is,
 * so a caller within its steady rate never touches it (and the fields name only that policy).
 */
export async function countReportRequest(requester: Requester): Promise<ReportRateDecision> {
  const { policies, steady, burst } = limits();
  if (!steady) return { fields: {}, refusal: null };
  const perSecond = await counted(steady.counter, requester.caller);
  const outcome: RateOutcome = { policies, states: [state(steady.policy, perSecond.result)] };
  if (perSecond.allowed) return { fields: rateLimitFields(outcome), refusal: null };
  const overflow = burst ? await counted(burst.counter, requester.caller) : null;
  const states = overflow && burst ? [...outcome.states, state(burst.policy, overflow.result)] : outcome.states;
  const fields = rateLimitFields({ policies, states });
  if (overflow?.allowed) return { fields, refusal: null };

  countReportRefusal("rate");
  const { TALLY_REPORT_RATE_PER_SECOND: rate, TALLY_REPORT_RATE_BURST: burstSize } = env();
  // The sooner of the two windows: the second's allowance or the burst's comes back then.
  const waitMs = Math.min(perSecond.result.msBeforeNext, overflow ? overflow.result.msBeforeNext : Number.POSITIVE_INFINITY);
  const who = requester.caller.startsWith("key:") ? "API key" : requester.caller.startsWith("client:") ? "OAuth client" : "user";
  return {
    fields,
    refusal: new TallyError(
      "too_many_requests",
      `too many report requests for this ${who}: at most ${rate} a second, with a burst of ${burstSize} more in 10 s; retry after the wait in Retry-After`,
      { retryAfterSeconds: Math.ceil(waitMs / 1000) },
    ),
  };
}
