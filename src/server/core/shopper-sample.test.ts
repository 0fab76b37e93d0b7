import { describe, expect, it } from "vitest";
import { inReachSample, REACH_SAMPLE_BITS, shopperHash, shopperKey } from "./shopper-sample";

describe("the shopper sample", () => {
  it("keys a shopper by publisher and user id, or a session alone when there is no user id", () => {
    expect(shopperKey("pub-1", "u-1", "s-9")).toEqual({ keyed: true, text: "u\u001fpub-1\u001fu-1" });
    expect(shopperKey("pub-1", null, "s-9")).toEqual({ keyed: false, text: "s\u001fpub-1\u001fs-9" });
    expect(shopperKey("pub-1", "", "s-9").keyed).toBe(false);
    // The same user id on another publisher is another shopper: no identity spans publishers.
    expect(shopperKey("pub-2", "u-1", "s-9").text).not.toBe(shopperKey("pub-1", "u-1", "s-9").text);
  });

  it("hashes a key to the first 8 bytes of its SHA-256, big-endian and signed", () => {
    // Values from Python's hashlib: struct.unpack('>q', sha256(text.encode()).digest()[:8]).
    expect(shopperHash("u\u001fpub-1\u001fu-1")).toBe(-6605393000264724842n);
    expect(shopperHash("s\u001fbpub-1\u001fs-42-20000")).toBe(5790943132285920951n);
    expect(shopperHash("u\u001fpub-ß\u001fjoão 🛒")).toBe(9186560001654353068n);
  });

  it("samples the hashes from 0 up to 2^(64 - bits), no further", () => {
    const limit = 1n << BigInt(64 - REACH_SAMPLE_BITS);
    expect(inReachSample(0n)).toBe(true);
    expect(inReachSample(limit - 1n)).toBe(true);
    expect(inReachSample(limit)).toBe(false);
    expect(inReachSample(-1n)).toBe(false);
    expect(inReachSample(-(1n << 63n))).toBe(false);
    expect(inReachSample((1n << 63n) - 1n, 0)).toBe(true);
  });

  it("takes about one shopper in 2^bits", () => {
    const keys = 64_000;
    let sampled = 0;
    for (let i = 0; i < keys; i++) if (inReachSample(shopperHash(shopperKey("pub-1", `u-${i}`, "s").text))) sampled++;
    // Binomial(64,000, 1/16): mean 4,000, standard deviation 61; 5 of them either side.
    expect(Math.abs(sampled - keys / 2 ** REACH_SAMPLE_BITS)).toBeLessThan(5 * 61);
  });
});
