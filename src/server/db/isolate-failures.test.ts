import { describe, expect, it } from "vitest";
import { MIN_PART_TIMEOUT_MS, partTimeoutMs } from "./isolate-failures";

describe("a part's statement timeout", () => {
  it("is its share of the batch's, never below the floor, and never above the batch's", () => {
    expect(partTimeoutMs(2_000, 2_000, 10_000)).toBe(10_000);
    expect(partTimeoutMs(1_000, 2_000, 10_000)).toBe(5_000);
    expect(partTimeoutMs(1, 2_000, 10_000)).toBe(MIN_PART_TIMEOUT_MS);
    expect(partTimeoutMs(1, 2_000, 1_000)).toBe(1_000);
    expect(partTimeoutMs(1, 1, 10_000)).toBe(10_000);
  });
});
