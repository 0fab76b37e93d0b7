import { describe, expect, it } from "vitest";
import { afterAttempt, blockMs, FAILURE_MEMORY_MS, isKnown, KNOWN_ADDRESS_MS, livePair, type PairState, waitInWords, waitMs } from "./sign-in-backoff";

const policy = { freeFailures: 5, firstBlockMs: 30_000, maxBlockMs: 900_000 };
const t0 = new Date("2026-11-28T10:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

describe("the back-off of one e-mail from one address", () => {
  it("lets the first wrong passwords through, then blocks for 30 s, doubling with each further one up to the cap", () => {
    expect([1, 2, 3, 4].map((failures) => blockMs(failures, policy))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 12].map((failures) => blockMs(failures, policy))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000,
    ]);
    expect(blockMs(1_000_000, policy)).toBe(900_000);
  });

  it("counts attempts one by one: the fifth earns the first block, and the wait runs from then", () => {
    let state = livePair(null, t0);
    for (let i = 0; i < 4; i += 1) {
      state = afterAttempt(state, t0, policy);
      expect(waitMs(state, t0)).toBe(0);
    }
    state = afterAttempt(state, t0, policy);
    expect(state.failures).toBe(5);
    expect(waitMs(state, t0)).toBe(30_000);
    expect(waitMs(state, at(29_000))).toBe(1_000);
    expect(waitMs(state, at(30_000))).toBe(0);
    state = afterAttempt(state, at(30_000), policy);
    expect(waitMs(state, at(30_000))).toBe(60_000);
  });

  it("forgets failures a day after the last attempt, and a block longer than that only once it ends", () => {
    const state = afterAttempt(livePair(null, t0), t0, policy);
    expect(state.expiresAt).toEqual(at(FAILURE_MEMORY_MS));
    expect(livePair(state, at(FAILURE_MEMORY_MS - 1)).failures).toBe(1);
    expect(livePair(state, at(FAILURE_MEMORY_MS)).failures).toBe(0);
    const long = afterAttempt({ ...state, failures: 30 }, t0, { ...policy, maxBlockMs: 2 * FAILURE_MEMORY_MS });
    expect(long.expiresAt).toEqual(at(2 * FAILURE_MEMORY_MS));
  });

  it("knows an address for 30 days after a sign-in from it, and keeps knowing it through later wrong passwords", () => {
    const signedIn: PairState = { failures: 0, blockedUntil: null, succeededAt: t0, expiresAt: at(KNOWN_ADDRESS_MS) };
    expect(isKnown(signedIn, at(KNOWN_ADDRESS_MS - 1))).toBe(true);
    expect(isKnown(signedIn, at(KNOWN_ADDRESS_MS))).toBe(false);
    const mistyped = afterAttempt(signedIn, at(1000), policy);
    expect(isKnown(mistyped, at(1000))).toBe(true);
    expect(mistyped.expiresAt).toEqual(at(KNOWN_ADDRESS_MS));
    expect(isKnown(livePair(null, t0), t0)).toBe(false);
  });
});

describe("a wait in words", () => {
  it("is seconds up to a minute and a half, then whole minutes rounded up", () => {
    expect([1, 30, 89, 90, 120, 121, 900].map(waitInWords)).toEqual([
      "1 second",
      "30 seconds",
      "89 seconds",
      "2 minutes",
      "2 minutes",
      "3 minutes",
      "15 minutes",
    ]);
  });
});
