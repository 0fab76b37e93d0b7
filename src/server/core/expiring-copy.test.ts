import { describe, expect, it } from "vitest";
import { expiringCopy } from "./expiring-copy";

describe("an expiring copy", () => {
  it("reads once per window, shows what it read only once read, and reads again after it", async () => {
    let reads = 0;
    const copy = expiringCopy(1_000, async () => ++reads);
    const first = copy.get(0);
    expect(copy.known(0)).toBeUndefined();
    expect(await first).toBe(1);
    expect(await copy.get(999)).toBe(1);
    expect(copy.known(999)).toBe(1);
    expect(copy.known(1_000)).toBeUndefined();
    expect(await copy.get(1_000)).toBe(2);
    copy.forget();
    expect(copy.known(1_001)).toBeUndefined();
    expect(await copy.get(1_001)).toBe(3);
  });

  it("reads again after a failed read", async () => {
    let fail = true;
    const copy = expiringCopy(1_000, async () => {
      if (fail) throw new Error("down");
      return "up";
    });
    await expect(copy.get(0)).rejects.toThrow("down");
    fail = false;
    expect(await copy.get(1)).toBe("up");
  });
});
