import { describe, expect, it } from "vitest";
import { fromMicros, toMicros } from "./money";

describe("money in micro-units", () => {
  it("keeps a CPM's per-impression share exact", () => {
    // A 2.50 CPM pays 0.0025 per impression: not representable in cents, exact in micros.
    expect(toMicros(2.5) / 1000n).toBe(2500n);
    expect(fromMicros((toMicros(2.5) / 1000n) * 1000n)).toBe(2.5);
  });

  it("rounds to the nearest micro-unit and round-trips", () => {
    expect(toMicros(0.1 + 0.2)).toBe(300_000n);
    expect(toMicros(19.999_999_6)).toBe(20_000_000n);
    expect(fromMicros(toMicros(1234.56))).toBe(1234.56);
  });

  it("refuses non-finite amounts", () => {
    expect(() => toMicros(Number.NaN)).toThrow(RangeError);
    expect(() => toMicros(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
