import { describe, expect, it } from "vitest";
import { ALL_SHARDS, SETTLE_SHARDS, shardOf } from "./shards";

describe("shardOf", () => {
  it("gives one ad and session the same shard every time, inside the range", () => {
    expect(shardOf("ad-1", "session-1")).toBe(shardOf("ad-1", "session-1"));
    for (let n = 0; n < 1000; n++) {
      const shard = shardOf(`ad-${n % 7}`, `session-${n}`);
      expect(Number.isInteger(shard) && shard >= 0 && shard < SETTLE_SHARDS).toBe(true);
    }
  });

  it("spreads sessions over every shard, none with more than twice its share", () => {
    const counts = new Map<number, number>();
    for (let n = 0; n < 16_000; n++) counts.set(shardOf("ad-1", `s-${n}`), (counts.get(shardOf("ad-1", `s-${n}`)) ?? 0) + 1);
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(ALL_SHARDS);
    expect(Math.max(...counts.values())).toBeLessThan((2 * 16_000) / SETTLE_SHARDS);
  });

  it("keeps the separator: (ab, c) and (a, bc) are different keys", () => {
    const pairs = Array.from({ length: 50 }, (_, n) => [shardOf(`x${n}a`, "b"), shardOf(`x${n}`, "ab")]);
    expect(pairs.some(([a, b]) => a !== b)).toBe(true);
  });
});
