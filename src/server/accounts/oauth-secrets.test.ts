import { timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ACCESS_TOKEN_PATTERN,
  CLIENT_ID_PATTERN,
  CLIENT_SECRET_PATTERN,
  newAccessToken,
  newClientId,
  newClientSecret,
  secretMatches,
  sha256Hex,
} from "./oauth-secrets";

/** timingSafeEqual itself, recording what it was given. */
function recordingEqual() {
  const calls: [Buffer, Buffer][] = [];
  const equal = (a: Buffer, b: Buffer) => {
    calls.push([a, b]);
    return timingSafeEqual(a, b);
  };
  return { calls, equal };
}

describe("OAuth client secrets", () => {
  it("are made to their patterns, with 192 random bits for a secret and 256 for a token", () => {
    const secret = newClientSecret();
    expect(newClientId()).toMatch(CLIENT_ID_PATTERN);
    expect(secret).toMatch(CLIENT_SECRET_PATTERN);
    expect(Buffer.from(secret.slice(4), "base64url")).toHaveLength(24);
    const token = newAccessToken();
    expect(token).toMatch(ACCESS_TOKEN_PATTERN);
    expect(Buffer.from(token.slice(4), "base64url")).toHaveLength(32);
    expect(newClientSecret()).not.toBe(secret);
  });

  it("match only the secret whose SHA-256 is stored, through timingSafeEqual on 32-byte digests", () => {
    const secret = newClientSecret();
    const right = recordingEqual();
    expect(secretMatches(sha256Hex(secret), secret, right.equal)).toBe(true);
    expect(right.calls).toHaveLength(1);
    expect(right.calls[0]!.map((digest) => digest.length)).toEqual([32, 32]);

    const wrong = recordingEqual();
    expect(secretMatches(sha256Hex(secret), `${secret}x`, wrong.equal)).toBe(false);
    expect(wrong.calls).toHaveLength(1);
  });

  it("hash and compare the secret for an unknown client too, and never match it", () => {
    const secret = newClientSecret();
    const unknown = recordingEqual();
    expect(secretMatches(null, secret, unknown.equal)).toBe(false);
    expect(unknown.calls).toHaveLength(1);
    const [given, expected] = unknown.calls[0]!;
    expect(given.toString("hex")).toBe(sha256Hex(secret));
    expect(expected).toHaveLength(32);
    // Even a comparison that says "equal" does not make an unknown client's secret right.
    expect(secretMatches(null, secret, () => true)).toBe(false);
  });
});
