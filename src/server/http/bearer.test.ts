import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bearerMatches } from "./bearer";

const SECRET = "metrics-token-of-this-deployment";

describe("bearerMatches", () => {
  it("accepts exactly `Bearer <secret>`", () => {
    expect(bearerMatches(`Bearer ${SECRET}`, SECRET)).toBe(true);
  });

  it("refuses a wrong secret of the same length, and any shorter or longer one, without throwing", () => {
    const sameLength = `${SECRET.slice(0, -1)}X`;
    for (const header of [
      `Bearer ${sameLength}`,
      `Bearer ${SECRET.slice(0, -1)}`,
      `Bearer ${SECRET}X`,
      `Bearer ${SECRET} `,
      `bearer ${SECRET}`,
      SECRET,
      "Bearer ",
      "",
      "x".repeat(100_000),
    ]) {
      expect(bearerMatches(header, SECRET)).toBe(false);
    }
    expect(bearerMatches(null, SECRET)).toBe(false);
  });

  it("refuses everything when no secret is configured, even a header naming an empty one", () => {
    expect(bearerMatches("Bearer ", undefined)).toBe(false);
    expect(bearerMatches("Bearer ", "")).toBe(false);
    expect(bearerMatches(null, undefined)).toBe(false);
  });

  it("matches if and only if the header is the expected one, for any header and secret", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (secret, noise) => {
        expect(bearerMatches(`Bearer ${secret}`, secret)).toBe(true);
        expect(bearerMatches(noise, secret)).toBe(noise === `Bearer ${secret}`);
      }),
    );
  });
});
