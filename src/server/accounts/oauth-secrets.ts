// The random strings of OAuth client credentials and how a secret is checked. A client secret
// carries 192 random bits and an access token 256, so a fast hash is enough to store them (as
// api-keys.ts argues): guessing is hopeless however fast each guess is, and a token is found by
// its hash with one index probe. The prefixes tell them apart from API keys (tly_) at a glance and
// in a secret scanner.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const CLIENT_ID_PATTERN = /^tlc_[A-Za-z0-9_-]{22}$/;
export const CLIENT_SECRET_PATTERN = /^tls_[A-Za-z0-9_-]{32}$/;
export const ACCESS_TOKEN_PREFIX = "tat_";
export const ACCESS_TOKEN_PATTERN = /^tat_[A-Za-z0-9_-]{43}$/;

/** A public client id: 128 random bits, unique without a look-up. */
export const newClientId = (): string => `tlc_${randomBytes(16).toString("base64url")}`;
export const newClientSecret = (): string => `tls_${randomBytes(24).toString("base64url")}`;
export const newAccessToken = (): string => `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;

export const sha256Hex = (value: string): string => createHash("sha256").update(value).digest("hex");

// What an unknown client's secret is compared against: random, so no secret matches it, and the
// same work is done whether or not the client exists, so the answer's timing cannot tell.
const UNKNOWN_CLIENT_DIGEST = randomBytes(32);

/**
 * Whether `secret` is the one whose SHA-256 is `storedHash` (hex), compared in constant time.
 * With no stored hash (an unknown or revoked client) the secret is hashed and compared all the
 * same, against a digest no secret has. `equal` is swappable so a test can see it is called.
 */
export function secretMatches(storedHash: string | null, secret: string, equal: (a: Buffer, b: Buffer) => boolean = timingSafeEqual): boolean {
  const given = createHash("sha256").update(secret).digest();
  const expected = storedHash === null ? UNKNOWN_CLIENT_DIGEST : Buffer.from(storedHash, "hex");
  const same = equal(given, expected);
  return same && storedHash !== null;
}
