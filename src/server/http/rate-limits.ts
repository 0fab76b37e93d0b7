// Rate limits on the public /v1 routes, answered 429 with Retry-After, shared by every collector
// and app server through Postgres (src/server/db/shared-limiter.ts: leases, so no request
// waits on the database but the few that need a new share). Anonymous traffic is limited per
// client address, per publisher and address, and per publisher; a publisher-wide limit that is
// spent still lets in the addresses that have made few requests for that publisher, so strangers
// naming a publisher cannot lock its shoppers out (docs/decisions/0011-shared-limits-via-postgres-leases.md).
// Requests made with an API key are limited per key (limitKey). Sign-in keeps its own limits
// (src/server/accounts/sign-in-limits.ts).
import { IDENTIFIER_FORMAT } from "@/contracts/string-formats";
import { env } from "@/env";
import { countLightAdmission, countLimitLease, countLimitRefusal, type V1Limit } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { postgresLeaseStore } from "@/server/db/limit-windows.sql";
import { SharedLimiter } from "@/server/db/shared-limiter";
import { addressKey } from "./client-address";

/** Limits count over 10 seconds: a page's burst of beacons fits, a sustained flood does not. */
export const WINDOW_SECONDS = 10;

/** A capacity no window reaches: counts a key in memory only (its advance is never spent). */
const UNCOUNTED = 2 ** 31 - 1;

interface V1Limits {
  limiter: SharedLimiter;
  /** Requests a window admits: per address, per publisher, per publisher and address, per API key (0: no limit). */
  address: number;
  publisher: number;
  publisherAddress: number;
  apiKey: number;
  /** An address's requests for a publisher, in this process's window, still admitted once that publisher's limit is spent. */
  light: number;
}

const holder = globalThis as unknown as { tallyV1Limits?: V1Limits };

let clock: (() => number) | undefined;

function limits(): V1Limits {
  if (!holder.tallyV1Limits) {
    const config = env();
    let failedWindow = -1;
    holder.tallyV1Limits = {
      limiter: new SharedLimiter({
        store: postgresLeaseStore(),
        windowMs: WINDOW_SECONDS * 1000,
        now: clock,
        onLease: (outcome, keys, error) => {
          countLimitLease(outcome, keys);
          // Once a window: a database that is down would otherwise write this per statement.
          const window = Math.floor(Date.now() / (WINDOW_SECONDS * 1000));
          if (outcome === "failed" && window !== failedWindow) {
            failedWindow = window;
            logger().warn(
              { cause: error instanceof Error ? error.message : String(error) },
              "the shared /v1 rate limits cannot reach Postgres: counting in this process alone until the window ends",
            );
          }
        },
      }),
      address: config.TALLY_V1_RATE_PER_ADDRESS * WINDOW_SECONDS,
      publisher: config.TALLY_V1_RATE_PER_PUBLISHER * WINDOW_SECONDS,
      publisherAddress: config.TALLY_V1_RATE_PER_PUBLISHER_ADDRESS * WINDOW_SECONDS,
      apiKey: config.TALLY_V1_RATE_PER_API_KEY * WINDOW_SECONDS,
      light: config.TALLY_V1_LIGHT_ADDRESS_REQUESTS,
    };
  }
  return holder.tallyV1Limits;
}

/**
 * Forgets this process's counts and re-reads the limits from the environment (tests change them);
 * `now` replaces the clock, so that a test's requests fall in one window.
 */
export function resetV1Limits(options: { now?: () => number } = {}): void {
  clock = options.now;
  holder.tallyV1Limits = undefined;
}

const MESSAGES: Record<V1Limit, string> = {
  address: "too many requests from this address; retry later",
  publisher: "too many requests from this publisher; retry later",
  publisher_address: "too many requests from this address for this publisher; retry later",
  api_key: "too many requests with this API key; retry later",
};

function refused(limit: V1Limit, limiter: SharedLimiter): TallyError {
  countLimitRefusal(limit);
  // No stack: a 429 is answered, never logged, and capturing one was most of what a flood's
  // refused request cost (bench/ingest/limiter-cost.ts).
  const depth = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new TallyError("too_many_requests", MESSAGES[limit], { retryAfterSeconds: limiter.retryAfterSeconds() });
  } finally {
    Error.stackTraceLimit = depth;
  }
}

/** Nothing when admitted (nearly always, with no promise made), a wait when a lease must be asked; throws the 429. */
type Admission = undefined | Promise<void>;

function admit(verdict: boolean | Promise<boolean>, limit: V1Limit, limiter: SharedLimiter): Admission {
  if (verdict === true) return undefined;
  if (verdict === false) throw refused(limit, limiter);
  return verdict.then((admitted) => {
    if (!admitted) throw refused(limit, limiter);
  });
}

/** One /v1 request from this address; 429 past the limit. An unknown address is not limited here. */
export function limitAddress(address: string | null): Admission {
  const l = limits();
  if (address === null || l.address === 0) return undefined;
  return admit(l.limiter.take(`a ${addressKey(address)}`, l.address), "address", l.limiter);
}

/** What a publisher id must look like to be counted: the ad query's and the conversion's own rule. */
const countablePublisher = (publisherId: string) => publisherId.length > 0 && publisherId.length <= 256 && IDENTIFIER_FORMAT.test(publisherId);

/**
 * One anonymous /v1 request for this publisher's pages, from this address: 429 past the limit per
 * publisher and address, then against the publisher's own limit, unless the address is light on
 * that publisher (TALLY_V1_LIGHT_ADDRESS_REQUESTS), which a stranger cannot change. A publisher id
 * no route would accept is not counted here (the request fails its validation anyway).
 */
export function limitPublisher(publisherId: string, address: string | null): Admission {
  const l = limits();
  if (!countablePublisher(publisherId)) return undefined;
  const own = address === null ? null : `pa ${publisherId} ${addressKey(address)}`;
  // Counted even with no limit of its own: the publisher-wide limit's exception reads it.
  const verdict = own === null ? true : l.limiter.take(own, l.publisherAddress || UNCOUNTED);
  if (verdict === true) return publisherWide(l, publisherId, own);
  if (verdict === false) throw refused("publisher_address", l.limiter);
  return verdict.then((admitted) => {
    if (!admitted) throw refused("publisher_address", l.limiter);
    return publisherWide(l, publisherId, own);
  });
}

function publisherWide(l: V1Limits, publisherId: string, own: string | null): Admission {
  if (l.publisher === 0) return undefined;
  const verdict = l.limiter.take(`p ${publisherId}`, l.publisher);
  if (verdict === true) return undefined;
  if (verdict === false) return lightOrRefused(l, own);
  return verdict.then((admitted) => (admitted ? undefined : lightOrRefused(l, own)));
}

/** The publisher's limit is spent: its shoppers, each light on it, are still let in; the heavy addresses are not. */
function lightOrRefused(l: V1Limits, own: string | null): undefined {
  if (own !== null && l.limiter.usedHere(own) <= l.light) {
    countLightAdmission();
    return undefined;
  }
  throw refused("publisher", l.limiter);
}

/**
 * One /v1 request made with this API key (its id): 429 past the key's limit. For routes that a
 * publisher's servers call with their own key, which no stranger can spend.
 */
export function limitKey(keyId: string): Admission {
  const l = limits();
  if (l.apiKey === 0) return undefined;
  return admit(l.limiter.take(`k ${keyId}`, l.apiKey), "api_key", l.limiter);
}
