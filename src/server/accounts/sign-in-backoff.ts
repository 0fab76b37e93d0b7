// The back-off of one e-mail from one client address, as pure rules (sign-in-limits.ts keeps the
// state in Postgres). A few wrong passwords in a row are free; then each one blocks that pair for
// a while, doubling up to a cap; a successful sign-in clears the count and marks the address as
// known to the e-mail. Nothing here is keyed on the e-mail alone, so guesses from one address
// never hold back its owner at another.

/** How long a pair's failures are remembered after its last attempt, when no sign-in clears them. */
export const FAILURE_MEMORY_MS = 24 * 3_600_000;
/** How long an address stays known to an e-mail after a sign-in from it. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;

export interface BackoffPolicy {
  /** Wrong passwords in a row before the first block (TALLY_SIGN_IN_FREE_FAILURES). */
  freeFailures: number;
  firstBlockMs: number;
  maxBlockMs: number;
}

/** One (e-mail, address) pair as stored; a pair never seen, or past its expiry, is FRESH. */
export interface PairState {
  failures: number;
  blockedUntil: Date | null;
  succeededAt: Date | null;
  expiresAt: Date;
}

const FRESH = { failures: 0, blockedUntil: null, succeededAt: null } as const;

/** The state that holds at `now`: a row past its expiry means nothing any more. */
export function livePair(stored: PairState | null, now: Date): PairState {
  return stored && stored.expiresAt > now ? stored : { ...FRESH, expiresAt: now };
}

/** Milliseconds the pair must still wait at `now`; 0 when it may try. */
export function waitMs(state: PairState, now: Date): number {
  return state.blockedUntil ? Math.max(0, state.blockedUntil.getTime() - now.getTime()) : 0;
}

/** Whether the e-mail's owner signed in from this address within KNOWN_ADDRESS_MS. */
export function isKnown(state: PairState, now: Date): boolean {
  return state.succeededAt !== null && now.getTime() - state.succeededAt.getTime() < KNOWN_ADDRESS_MS;
}

/** The block earned by `failures` in a row: none up to freeFailures, then first, doubling, capped. */
export function blockMs(failures: number, policy: BackoffPolicy): number {
  if (failures < policy.freeFailures) return 0;
  // 2^40 already passes any cap a day long; the exponent is bounded so the number stays finite.
  return Math.min(policy.maxBlockMs, policy.firstBlockMs * 2 ** Math.min(40, failures - policy.freeFailures));
}

/**
 * The pair once an attempt is counted, before its password is checked (so concurrent guesses
 * cannot all pass an unblocked pair): one more failure, and the block that count earns.
 */
export function afterAttempt(state: PairState, now: Date, policy: BackoffPolicy): PairState {
  const failures = state.failures + 1;
  const block = blockMs(failures, policy);
  const known = isKnown(state, now) ? state.succeededAt!.getTime() + KNOWN_ADDRESS_MS : 0;
  return {
    failures,
    blockedUntil: block > 0 ? new Date(now.getTime() + block) : null,
    succeededAt: state.succeededAt,
    expiresAt: new Date(Math.max(now.getTime() + Math.max(block, FAILURE_MEMORY_MS), known)),
  };
}

/** A wait as the sign-in form shows it: seconds up to a minute and a half, then whole minutes. */
export function waitInWords(seconds: number): string {
  if (seconds < 90) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
