// Report requests per caller (an API key, or a signed-in person for the dashboard's downloads):
// TALLY_REPORT_RATE_PER_SECOND, plus a burst of TALLY_REPORT_RATE_BURST over any 10 s, answered
// 429 with Retry-After past both. Counted in Postgres (rate-limiter-flexible over rate_limits),
// so a caller spreading its requests over many processes still meets one limit. That costs one
// upsert per request on the request pool; a caller over the limit is then refused from this
// process's memory until its window ends, so a flood costs no round trip at all.
import { BurstyRateLimiter, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { countReportRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { postgresRateLimiter } from "@/server/db/rate-limit-store";
import type { Requester } from "@/server/pipeline/report/download-slots";

const BURST_WINDOW_SECONDS = 10;

interface Limiter {
  consume(key: string): Promise<unknown>;
}

const holder = globalThis as unknown as { tallyReportRateLimit?: { limiter: Limiter | null } };

// Once the window's points are spent, later requests in it are refused here without a query.
const make = (points: number, duration: number, keyPrefix: string) => postgresRateLimiter({ points, duration, keyPrefix, blockInMemory: true });

function limiter(): Limiter | null {
  if (!holder.tallyReportRateLimit) {
    const { TALLY_REPORT_RATE_PER_SECOND: rate, TALLY_REPORT_RATE_BURST: burst } = env();
    const steady = rate === 0 ? null : make(rate, 1, "report-rate");
    holder.tallyReportRateLimit = {
      limiter: steady && burst > 0 ? new BurstyRateLimiter(steady, make(burst, BURST_WINDOW_SECONDS, "report-burst")) : steady,
    };
  }
  return holder.tallyReportRateLimit.limiter;
}

/** Forgets the limiter (and its in-memory refusals) and re-reads the limits (tests change them). */
export function resetReportRateLimit(): void {
  holder.tallyReportRateLimit = undefined;
}

/** Counts one report request of `requester`; 429 with the wait past the limit. */
export async function limitReportRequest(requester: Requester): Promise<void> {
  const rates = limiter();
  if (!rates) return;
  try {
    await rates.consume(requester.caller);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    countReportRefusal("rate");
    const { TALLY_REPORT_RATE_PER_SECOND: rate, TALLY_REPORT_RATE_BURST: burst } = env();
    throw new TallyError(
      "too_many_requests",
      `too many report requests for this ${requester.caller.startsWith("key:") ? "API key" : requester.caller.startsWith("client:") ? "OAuth client" : "user"}: at most ${rate} a second, with a burst of ${burst} more in 10 s; retry after the wait in Retry-After`,
      { retryAfterSeconds: Math.ceil(rejection.msBeforeNext / 1000) },
    );
  }
}
