// Sign-in guesses are limited before the password is hashed: scrypt is made to be expensive, so
// every guess costs Tally as much as the guesser. Everything is counted in Postgres, not in
// memory, so guesses spread over many processes or serverless instances still add up.
//
// Nothing an outsider does locks an e-mail's owner out (docs/decisions/0038-sign-in-backoff.md):
// - per client address: TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS attempts in 15 minutes, whatever the
//   e-mails (rate-limiter-flexible, table rate_limits, under the address's keyed hash);
// - per e-mail AND address: a back-off after a few wrong passwords in a row, doubling up to a cap,
//   cleared by a successful sign-in (sign-in-backoff.ts, table sign_in_backoff). A stranger's
//   guesses block only the stranger's own address;
// - per e-mail, against guessing from very many addresses: once the e-mail has had
//   TALLY_SIGN_IN_FAILURES_PER_EMAIL wrong passwords in 15 minutes, addresses it has not signed in
//   from in 30 days share TALLY_SIGN_IN_NEW_ADDRESS_ATTEMPTS_PER_MINUTE attempts a minute for it.
//   An address the owner signed in from meets only its own back-off.
import { createHash, createHmac } from "node:crypto";
import type pg from "pg";
import { type RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { countSignInRefusal, type SignInLimit } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { pgPool } from "@/server/db/pg-pool";
import { postgresRateLimiter } from "@/server/db/rate-limit-store";
import { inTransaction } from "@/server/db/transaction";
import { signIn, type Viewer } from "./sessions";
import { afterAttempt, type BackoffPolicy, isKnown, KNOWN_ADDRESS_MS, livePair, type PairState, waitInWords, waitMs } from "./sign-in-backoff";
import { DELETE_EXPIRED_PAIRS, insertPairRow, type PairRow, pairSucceeded, readPairRow, updatePairRow } from "./sign-in-limits.sql";

/**
 * Who is signing in, as the transport hands it over (it alone knows the address): the key the
 * address is limited under (an IPv6 address by its /64) and its keyed hash, which the tables hold
 * instead of the address.
 */
export interface SignInClient {
  key: string;
  hash: string;
}

/** The per-address limit and the e-mail's count of wrong passwords run over 15 minutes. */
const WINDOW_SECONDS = 15 * 60;
/** Expired back-off rows are deleted at most this often by each process. */
const SWEEP_EVERY_MS = 60_000;

type Limiters = { address: RateLimiterPostgres; emailFailures: RateLimiterPostgres; newAddress: RateLimiterPostgres };
const holder = globalThis as unknown as { tallySignInLimits?: Limiters; tallySignInSweptAt?: number; tallySignInPairKey?: Buffer };

function limiters(): Limiters {
  if (!holder.tallySignInLimits) {
    const make = (points: number, duration: number, keyPrefix: string) => postgresRateLimiter({ points, duration, keyPrefix });
    const config = env();
    holder.tallySignInLimits = {
      address: make(config.TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS, WINDOW_SECONDS, "sign-in-address"),
      emailFailures: make(config.TALLY_SIGN_IN_FAILURES_PER_EMAIL, WINDOW_SECONDS, "sign-in-email-failures"),
      newAddress: make(config.TALLY_SIGN_IN_NEW_ADDRESS_ATTEMPTS_PER_MINUTE, 60, "sign-in-new-address"),
    };
  }
  return holder.tallySignInLimits;
}

function policy(): BackoffPolicy {
  const config = env();
  return {
    freeFailures: config.TALLY_SIGN_IN_FREE_FAILURES,
    firstBlockMs: config.TALLY_SIGN_IN_BACKOFF_SECONDS * 1000,
    maxBlockMs: config.TALLY_SIGN_IN_BACKOFF_MAX_SECONDS * 1000,
  };
}

const normalEmail = (email: string) => email.trim().toLowerCase();
// The key column holds 255 characters; an e-mail may have 320. Its hash also keeps addresses out of the table.
const emailKey = (email: string) => createHash("sha256").update(normalEmail(email)).digest("hex");

/**
 * The back-off row's key: a keyed hash, since an unkeyed one of an e-mail and an IPv4 address
 * would be reversed by trying every address with a known e-mail. An unknown address (no proxy
 * header, no socket) is one address of its own.
 */
function pairKey(email: string, client: SignInClient | null): string {
  holder.tallySignInPairKey ??= createHmac("sha256", env().TALLY_SECRETS_KEY).update("tally sign-in back-off").digest();
  const address = client === null ? "" : client.key;
  return createHmac("sha256", holder.tallySignInPairKey)
    .update(`${normalEmail(email)}\n${address}`)
    .digest("base64url");
}

const MESSAGES: Record<SignInLimit, (wait: string) => string> = {
  address: (wait) => `too many sign-in attempts from this address; try again in ${wait}`,
  backoff: (wait) => `too many wrong passwords for this e-mail from this address; try again in ${wait}`,
  new_address: (wait) => `this e-mail has had many wrong passwords from elsewhere, so sign-in from a new address is slowed; try again in ${wait}`,
};

function refuse(limit: SignInLimit, waitMilliseconds: number): never {
  countSignInRefusal(limit);
  const seconds = Math.max(1, Math.ceil(waitMilliseconds / 1000));
  throw new TallyError("too_many_requests", MESSAGES[limit](waitInWords(seconds)), { retryAfterSeconds: seconds });
}

async function consume(limiter: RateLimiterPostgres, key: string, limit: SignInLimit): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    refuse(limit, rejection.msBeforeNext);
  }
}

/** Whether the e-mail has had its threshold of wrong passwords in the window, from anywhere. */
async function emailUnderAttack(email: string): Promise<boolean> {
  const { emailFailures } = limiters();
  const counted = await emailFailures.get(emailKey(email));
  return (counted?.consumedPoints ?? 0) >= emailFailures.points;
}

/** The pair as it stands at the database's `now()`; locked when asked, once its row exists. */
async function readPair(client: pg.ClientBase | pg.Pool, key: string, forUpdate: boolean): Promise<{ state: PairState; now: Date }> {
  const { now, failures, blockedUntil, succeededAt, expiresAt } = (await client.query<PairRow>(readPairRow(key, forUpdate))).rows[0]!;
  const stored = expiresAt === null ? null : { failures: failures ?? 0, blockedUntil, succeededAt, expiresAt };
  return { state: livePair(stored, now), now };
}

/**
 * Counts an attempt of this e-mail from this address, or refuses it (429, with the wait). The
 * pair is read first, without a lock, to decide whether the e-mail-wide slow-down applies (a
 * blocked pair is refused before it takes a turn there); then the count is taken under the row's
 * lock, where the block is checked again, so concurrent guesses are counted one after another
 * and no burst gets past a block. No other query runs while the lock is held: the transaction
 * never waits for a second connection of the pool. The attempt counts as a failure until the
 * password proves right.
 */
async function beginAttempt(email: string, client: SignInClient | null): Promise<string> {
  const key = pairKey(email, client);
  const seen = await readPair(pgPool(), key, false);
  const wait = waitMs(seen.state, seen.now);
  if (wait > 0) refuse("backoff", wait);
  if (!isKnown(seen.state, seen.now) && (await emailUnderAttack(email))) await consume(limiters().newAddress, emailKey(email), "new_address");
  await inTransaction(async (client) => {
    await client.query(insertPairRow(key));
    const { state, now } = await readPair(client, key, true);
    const stillWait = waitMs(state, now);
    if (stillWait > 0) refuse("backoff", stillWait);
    const next = afterAttempt(state, now, policy());
    await client.query(updatePairRow(key, next));
  });
  return key;
}

/** Deletes back-off rows past their expiry (indexed on expires_at). */
export async function deleteExpiredBackoff(): Promise<void> {
  await pgPool().query(DELETE_EXPIRED_PAIRS);
}

/** deleteExpiredBackoff, at most once a minute per process. */
async function sweepExpired(): Promise<void> {
  if (holder.tallySignInSweptAt !== undefined && Date.now() - holder.tallySignInSweptAt < SWEEP_EVERY_MS) return;
  holder.tallySignInSweptAt = Date.now();
  await deleteExpiredBackoff();
}

/**
 * signIn, after counting the attempt against its client address (when known), its e-mail from
 * that address, and (while the e-mail is being guessed from many addresses) against new
 * addresses: past a limit a 429 with the wait, and the password is not checked at all.
 */
export async function signInWithinLimits(input: { email: string; password: string; client: SignInClient | null }): Promise<Awaited<ReturnType<typeof signIn>>> {
  const { address, emailFailures } = limiters();
  await sweepExpired();
  // Counted under the address's keyed hash, as click events store it: the table holds no address.
  if (input.client !== null) await consume(address, input.client.hash, "address");
  const key = await beginAttempt(input.email, input.client);
  let session: Awaited<ReturnType<typeof signIn>>;
  try {
    session = await signIn(input.email, input.password);
  } catch (error) {
    if (error instanceof TallyError && error.code === "unauthorized") await emailFailures.penalty(emailKey(input.email));
    throw error;
  }
  // The owner got in: this address starts afresh, and is known to the e-mail from now on.
  await pgPool().query(pairSucceeded(key, KNOWN_ADDRESS_MS));
  return session;
}

export type { Viewer };
