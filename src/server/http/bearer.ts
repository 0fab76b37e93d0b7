// Bearer secrets (the metrics token, the cron secret) compared without telling a prober anything
// through timing: timingSafeEqual alone must be given buffers of one length, and returning early
// when the lengths differ tells the secret's length. Both sides are first HMAC-ed under a key made
// once per process, so what is compared is always 32 bytes, whatever was sent, and the digest of
// the expected value cannot be computed ahead by anyone outside the process.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

let digestKey: Buffer | undefined;

function digest(value: string): Buffer {
  digestKey ??= randomBytes(32);
  return createHmac("sha256", digestKey).update(value).digest();
}

/** Whether an Authorization header carries `Bearer <secret>`, compared in constant time; never without a configured secret. */
export function bearerMatches(header: string | null, secret: string | undefined): boolean {
  if (!secret) return false;
  // Both digests are always computed, so a missing header costs what a wrong one does.
  const given = digest(header ?? "");
  const expected = digest(`Bearer ${secret}`);
  return timingSafeEqual(given, expected);
}
