// Rate limits on the public /v1 routes: per client address and per publisher, answered 429 with
// Retry-After (rate-limiter-flexible). They count in each process's memory: the hot path takes no
// round trip for them, so a limit holds per process, and the operator sets it for the number of
// events processes behind the balancer (docs/ingest.md). Sign-in keeps its limits in Postgres
// (src/server/accounts/sign-in-limits.ts), where guesses must be counted across every process.
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { TallyError } from "@/server/errors";
import { addressKey } from "./client-address";

/** Limits count over 10 seconds: a page's burst of beacons fits, a sustained flood does not. */
const WINDOW_SECONDS = 10;

const holder = globalThis as unknown as { tallyV1Limits?: { address: RateLimiterMemory | null; publisher: RateLimiterMemory | null } };

function limiters() {
  if (!holder.tallyV1Limits) {
    const make = (perSecond: number, keyPrefix: string) =>
      perSecond === 0 ? null : new RateLimiterMemory({ keyPrefix, points: perSecond * WINDOW_SECONDS, duration: WINDOW_SECONDS });
    holder.tallyV1Limits = {
      address: make(env().TALLY_V1_RATE_PER_ADDRESS, "v1-address"),
      publisher: make(env().TALLY_V1_RATE_PER_PUBLISHER, "v1-publisher"),
    };
  }
  return holder.tallyV1Limits;
}

/** Forgets every count and re-reads the limits from the environment (tests change them). */
export function resetV1Limits(): void {
  holder.tallyV1Limits = undefined;
}

async function consume(limiter: RateLimiterMemory | null, key: string, what: string): Promise<void> {
  if (!limiter) return;
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new TallyError("too_many_requests", `too many requests from this ${what}; retry later`, {
      retryAfterSeconds: Math.ceil(rejection.msBeforeNext / 1000),
    });
  }
}

/** One /v1 request from this address; 429 past the limit. An unknown address is not limited here. */
export function limitAddress(address: string | null): Promise<void> {
  return address === null ? Promise.resolve() : consume(limiters().address, addressKey(address), "address");
}

/** One /v1 request for this publisher's pages; 429 past the limit. */
export function limitPublisher(publisherId: string): Promise<void> {
  return consume(limiters().publisher, publisherId, "publisher");
}
