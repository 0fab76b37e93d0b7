import { describe, expect, it } from "vitest";
import { WindowCounts } from "./beacon-allowances";

const HOUR = 3_600_000;

describe("window counts", () => {
  it("allow a key its allowance in a window, refuse the next with the seconds left, and start again in the next window", () => {
    const counts = new WindowCounts(HOUR, 100);
    const start = 10 * HOUR + 1_000;
    for (let i = 0; i < 3; i++) expect(counts.take("token", 3, start + i)).toEqual({ ok: true });
    expect(counts.take("token", 3, start + 10)).toEqual({ ok: false, retryAfterSeconds: 3599 });
    expect(counts.take("other", 3, start + 10)).toEqual({ ok: true });
    expect(counts.take("token", 3, 11 * HOUR)).toEqual({ ok: true });
  });

  it("stay within their size: a past window's keys go first, then the older generation whole, never every count at once", () => {
    const counts = new WindowCounts(HOUR, 100);
    for (let i = 0; i < 50; i++) counts.take(`old-${i}`, 1, 0);
    for (let i = 0; i < 50; i++) counts.take(`now-${i}`, 1, HOUR);
    counts.take("replayed", 1, HOUR);
    expect(counts.size).toBe(51);
    expect(counts.take("old-0", 1, HOUR).ok).toBe(true);
    // A key that keeps sending through a flood of new keys is carried along and stays counted.
    for (let i = 0; i < 1_000; i++) {
      counts.take(`flood-${i}`, 1, HOUR);
      if (i % 10 === 0) expect(counts.take("steady", 1_000, HOUR).ok).toBe(true);
    }
    expect(counts.size).toBeLessThanOrEqual(100);
    expect(counts.take("steady", 100, HOUR).ok).toBe(false);
    // The flood forgets the oldest keys; keys seen later in it are still counted.
    expect(counts.take("flood-999", 1, HOUR).ok).toBe(false);
    expect(counts.take("flood-0", 1, HOUR).ok).toBe(true);
  });
});
