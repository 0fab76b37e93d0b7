import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "./secret-box";

const KEY = Buffer.alloc(32, 3);

describe("secret box", () => {
  it("round-trips a secret, with a fresh nonce each time", () => {
    const a = encryptSecret("wJalrXUtnFEMI/K7MDENG", "dst_1", KEY);
    const b = encryptSecret("wJalrXUtnFEMI/K7MDENG", "dst_1", KEY);
    expect(a.equals(b)).toBe(false);
    expect(a.toString("latin1")).not.toContain("wJalr");
    expect(decryptSecret(a, "dst_1", KEY)).toBe("wJalrXUtnFEMI/K7MDENG");
  });

  it("fails closed on a changed byte, another destination's id or another key", () => {
    const box = encryptSecret("secret", "dst_1", KEY);
    for (const position of [0, 5, 20, box.length - 1]) {
      const tampered = Buffer.from(box);
      tampered[position]! ^= 1;
      expect(() => decryptSecret(tampered, "dst_1", KEY)).toThrow(position === 0 ? "unreadable" : "does not decrypt");
    }
    expect(() => decryptSecret(box, "dst_2", KEY)).toThrow("does not decrypt");
    expect(() => decryptSecret(box, "dst_1", Buffer.alloc(32, 4))).toThrow("does not decrypt");
    expect(() => decryptSecret(box.subarray(0, 20), "dst_1", KEY)).toThrow("unreadable");
  });
});
