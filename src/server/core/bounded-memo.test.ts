import { describe, expect, it } from "vitest";
import { boundedMemo } from "./bounded-memo";

describe("boundedMemo", () => {
  it("computes a key once while it is kept, and again after the memo starts over at its limit", () => {
    const computed: string[] = [];
    const lengthOf = boundedMemo(3, (key) => {
      computed.push(key);
      return key.length;
    });
    expect([lengthOf("a"), lengthOf("bb"), lengthOf("a"), lengthOf("ccc")]).toEqual([1, 2, 1, 3]);
    expect(computed).toEqual(["a", "bb", "ccc"]);
    // A fourth distinct key finds the memo full: it starts over with that key alone.
    expect(lengthOf("dddd")).toBe(4);
    expect(lengthOf("dddd")).toBe(4);
    expect(lengthOf("a")).toBe(1);
    expect(computed).toEqual(["a", "bb", "ccc", "dddd", "a"]);
  });

  it("keeps falsy answers too", () => {
    let calls = 0;
    const isEmpty = boundedMemo(10, (key) => {
      calls += 1;
      return key === "";
    });
    expect([isEmpty("x"), isEmpty("x"), isEmpty("x")]).toEqual([false, false, false]);
    expect(calls).toBe(1);
  });
});
