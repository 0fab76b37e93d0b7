// Sign-in guesses are limited per client address and per e-mail address (rate-limiter-flexible
// over Postgres, the table rate_limits), before the password is hashed: scrypt is made to be
// expensive, so every guess costs Tally as much as the guesser. Counted in the database, not in
// memory, so guesses spread over many processes or serverless instances still add up.
import { createHash } from "node:crypto";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { rateLimitStore } from "@/server/db/rate-limit-store";
import { TallyError } from "@/server/errors";
import { addressKey } from "@/server/http/client-address";
import { signIn, type Viewer } from "./sessions";

/** Attempts count over 15 minutes; a successful sign-in clears its e-mail's count. */
const WINDOW_SECONDS = 15 * 60;

const holder = globalThis as unknown as { tallySignInLimits?: { address: RateLimiterPostgres; email: RateLimiterPostgres } };

function limiters() {
  if (!holder.tallySignInLimits) {
    const make = (points: number, keyPrefix: string) =>
      new RateLimiterPostgres({
        storeClient: rateLimitStore,
        storeType: "pool",
        tableName: "rate_limits",
        tableCreated: true,
        clearExpiredByTimeout: true,
        keyPrefix,
        points,
        duration: WINDOW_SECONDS,
      });
    holder.tallySignInLimits = {
      address: make(env().TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS, "sign-in-address"),
      email: make(env().TALLY_SIGN_IN_ATTEMPTS_PER_EMAIL, "sign-in-email"),
    };
  }
  return holder.tallySignInLimits;
}

/** Forgets the limiters (tests change the limits). */
export function resetSignInLimits(): void {
  holder.tallySignInLimits = undefined;
}

// The key column holds 255 characters; an e-mail may have 320. Its hash also keeps addresses out of the table.
const emailKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("hex");

async function consume(limiter: RateLimiterPostgres, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new TallyError("too_many_requests", "too many sign-in attempts; wait a few minutes and try again", {
      retryAfterSeconds: Math.ceil(rejection.msBeforeNext / 1000),
    });
  }
}

/**
 * signIn, after counting the attempt against its client address (when known) and its e-mail:
 * past either limit a 429 with the wait, and the password is not checked at all.
 */
export async function signInWithinLimits(input: {
  email: string;
  password: string;
  clientAddress: string | null;
}): Promise<Awaited<ReturnType<typeof signIn>>> {
  const { address, email } = limiters();
  if (input.clientAddress !== null) await consume(address, addressKey(input.clientAddress));
  await consume(email, emailKey(input.email));
  const session = await signIn(input.email, input.password);
  // A person who got in is not held back later by guesses made before.
  await email.delete(emailKey(input.email)).catch(() => {});
  return session;
}

export type { Viewer };
