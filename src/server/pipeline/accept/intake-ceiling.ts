// The daily ceilings on what strangers can make Tally store for one publisher. Beacons and orders
// without proof (no API key, no verifying order_token) need no credential, so without a ceiling a
// flood from a few addresses fills a publisher's day for as long as it lasts; the rate limits only
// slow it. Each publisher's UTC day admits so many of each, counted and in bytes as stored, then
// 429 until the next day. Proven orders are never counted: a publisher's own server is not a stranger.
//
// The count is shared by every process as the rate limits are (src/server/db/shared-limiter.ts):
// leases of a day-long window in intake_ceiling_windows, handed out from memory, so a beacon costs
// no database round trip, and no statement reads more as a publisher's day grows. Each process
// admits a 1,024th of a day before it first asks, which is how far past the ceiling each process
// can go, and leases no more than that at once, which is how far short of it a process can leave
// the others (a lease unused when a process ends is lost for the day); what a process admitted
// and then failed to store, or an order ignored as a repeat, still counts.
import { env } from "@/env";
import { countIntakeCeilingRefusal, type IntakeCeilingRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { postgresLeaseStore } from "@/server/db/limit-windows.sql";
import { SharedLimiter } from "@/server/db/shared-limiter";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** The byte ceilings are counted in KiB: a day of several GiB stays inside the shared count's integer. */
const KIB = 1024;
/**
 * A day's share a process admits before it first asks, and the most it leases at once. Smaller
 * than the rate limits' (a 64th, a 16th): a day outlives processes, and one that ends loses what
 * it held, or never records its advance. At the default ceilings, still a statement a second at
 * most per publisher and process under the ingest benchmark's load.
 */
const SHARE = 1024;

export type Intake = IntakeCeilingRefusal["intake"];

interface Ceiling {
  /** Items a publisher's day admits; 0: no ceiling. */
  count: number;
  /** KiB a publisher's day admits; 0: no ceiling. */
  kib: number;
  /** MiB, as the setting says it, for the message. */
  mib: number;
}

interface IntakeCeilings {
  limiter: SharedLimiter;
  orders: Ceiling;
  beacons: Ceiling;
}

const holder = globalThis as unknown as { tallyIntakeCeilings?: IntakeCeilings };

let clock: (() => number) | undefined;

function ceilings(): IntakeCeilings {
  if (!holder.tallyIntakeCeilings) {
    const config = env();
    let failedMinute = -1;
    holder.tallyIntakeCeilings = {
      limiter: new SharedLimiter({
        store: postgresLeaseStore(undefined, "intake_ceiling_windows"),
        windowMs: DAY_MS,
        now: clock,
        advance: (capacity) => Math.floor(capacity / SHARE),
        maxLease: (capacity) => Math.max(1, Math.floor(capacity / SHARE)),
        onLease: (outcome, _keys, error) => {
          const minute = Math.floor(Date.now() / 60_000);
          if (outcome === "failed" && minute !== failedMinute) {
            failedMinute = minute;
            logger().warn(
              { cause: error instanceof Error ? error.message : String(error) },
              "the daily intake ceilings cannot reach Postgres: counting in this process alone until the day ends",
            );
          }
        },
      }),
      orders: {
        count: config.TALLY_UNPROVEN_ORDERS_PER_PUBLISHER_DAY,
        kib: config.TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY * KIB,
        mib: config.TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY,
      },
      beacons: {
        count: config.TALLY_BEACONS_PER_PUBLISHER_DAY,
        kib: config.TALLY_BEACON_MB_PER_PUBLISHER_DAY * KIB,
        mib: config.TALLY_BEACON_MB_PER_PUBLISHER_DAY,
      },
    };
  }
  return holder.tallyIntakeCeilings;
}

/**
 * Forgets this process's counts and re-reads the ceilings from the environment (tests change
 * them); `now` replaces the clock, so that a test can move to the next day.
 */
export function resetIntakeCeilings(options: { now?: () => number } = {}): void {
  clock = options.now;
  holder.tallyIntakeCeilings = undefined;
}

const WHAT: Record<Intake, string> = { orders: "unproven orders", beacons: "beacons" };
const AFTER: Record<Intake, string> = {
  orders: "orders sent with the publisher's API key or a valid order_token are still accepted, others again after 00:00 UTC",
  beacons: "beacons are accepted again after 00:00 UTC",
};

function refused(intake: Intake, limit: IntakeCeilingRefusal["limit"], publisherId: string, c: IntakeCeilings): TallyError {
  countIntakeCeilingRefusal({ intake, limit });
  const ceiling = c[intake];
  const reached = limit === "count" ? `${ceiling.count} a UTC day` : `${ceiling.mib} MiB a UTC day`;
  // No stack: past the ceiling a flood's every request is refused, and a 429 is answered, never logged.
  const depth = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new TallyError("too_many_requests", `publisher ${publisherId} reached today's ceiling of ${WHAT[intake]} (${reached}); ${AFTER[intake]}`, {
      retryAfterSeconds: c.limiter.retryAfterSeconds(),
    });
  } finally {
    Error.stackTraceLimit = depth;
  }
}

/** Nothing when admitted (nearly always, with no promise made), a wait when a lease must be asked. */
type Admission = undefined | Promise<void>;

/**
 * One item of `intake` for `publisherId`, `bytes` as stored: admitted within the publisher's day,
 * else 429 (Retry-After: until the next UTC day). Call it only for what needs no proof, and only
 * once the item is otherwise valid, so a refused one is all that is not stored.
 */
export function withinIntakeCeiling(intake: Intake, publisherId: string, bytes: number): Admission {
  const c = ceilings();
  const { count } = c[intake];
  const verdict = count === 0 ? true : c.limiter.take(`${intake} count ${publisherId}`, count);
  if (verdict === true) return withinBytes(c, intake, publisherId, bytes);
  if (verdict === false) throw refused(intake, "count", publisherId, c);
  return verdict.then((admitted) => {
    if (!admitted) throw refused(intake, "count", publisherId, c);
    return withinBytes(c, intake, publisherId, bytes);
  });
}

function withinBytes(c: IntakeCeilings, intake: Intake, publisherId: string, bytes: number): Admission {
  const { kib } = c[intake];
  if (kib === 0) return undefined;
  const verdict = c.limiter.take(`${intake} kib ${publisherId}`, kib, Math.max(1, Math.ceil(bytes / KIB)));
  if (verdict === true) return undefined;
  if (verdict === false) throw refused(intake, "bytes", publisherId, c);
  return verdict.then((admitted) => {
    if (!admitted) throw refused(intake, "bytes", publisherId, c);
  });
}
