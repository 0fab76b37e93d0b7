import { describe, expect, it } from "vitest";
import { bucketIndex, estimateReach, FREQUENCY_BUCKETS, type SampledShoppers } from "./reach-estimate";
import { inReachSample, REACH_SAMPLE_BITS, shopperHash, shopperKey } from "./shopper-sample";

const P = 1 / 2 ** REACH_SAMPLE_BITS;
const none = FREQUENCY_BUCKETS.map(() => 0);

describe("reach and frequency from sampled shoppers", () => {
  it("puts each impression count in its bucket", () => {
    expect([1, 2, 3, 5, 6, 10, 11, 500].map(bucketIndex)).toEqual([0, 1, 2, 2, 3, 3, 4, 4]);
    expect(FREQUENCY_BUCKETS.map(({ bucket }) => bucket)).toEqual(["1", "2", "3-5", "6-10", "11+"]);
  });

  // Worked examples, computed apart (Python, z = 1.959963984540054):
  it("scales the sampled shoppers up to reach with its 95% interval", () => {
    // The bench's large advertiser over 30 days (decision 0054): 96,459 of its 1,544,926 shoppers sampled at 1/16.
    const estimate = estimateReach({ rate: P, shoppers: 96_459, perBucket: [91_600, 4_700, 159, 0, 0], impressions: 101_500, impressionsSquared: 0 });
    expect(estimate.method).toBe("sampled");
    expect(estimate.reach.value).toBe(1_543_344);
    expect(estimate.reach.low).toBeCloseTo(1_533_913.71, 1);
    expect(estimate.reach.high).toBeCloseTo(1_552_774.29, 1);
    expect(estimate.reach.low).toBeLessThanOrEqual(1_544_926);
    expect(estimate.relativeError).toBeCloseTo(0.0031176, 6);
  });

  it("gives a bucket's share Wilson's interval with the sampling's finite-population factor", () => {
    const estimate = estimateReach({ rate: P, shoppers: 400, perBucket: [160, 120, 100, 20, 0], impressions: 1_000, impressionsSquared: 3_500 });
    const once = estimate.frequency[0]!;
    expect(once.share!.value).toBe(0.4);
    expect(once.share!.low).toBeCloseTo(0.3546069, 6);
    expect(once.share!.high).toBeCloseTo(0.4471777, 6);
    expect(once.shoppers.value).toBe(2_560);
    // An empty bucket: none sampled, an interval from 0 up, never below.
    const most = estimate.frequency[4]!;
    expect(most.share!.low).toBe(0);
    expect(most.share!.high).toBeGreaterThan(0);
    expect(most.shoppers).toEqual({ value: 0, low: 0, high: 0 });
  });

  it("estimates impressions per shopper from their sum and sum of squares", () => {
    // Four sampled shoppers seen 1, 2, 3 and 6 times: mean 3, s² = 14/3.
    const estimate = estimateReach({ rate: P, shoppers: 4, perBucket: [1, 1, 1, 1, 0], impressions: 12, impressionsSquared: 50 });
    expect(estimate.impressionsPerShopper!.value).toBe(3);
    expect(estimate.impressionsPerShopper!.low).toBe(1); // 0.95 by the formula; a reached shopper saw at least one
    expect(estimate.impressionsPerShopper!.high).toBeCloseTo(5.0497794, 6);
  });

  it("is exact when every shopper is counted, and says so", () => {
    const estimate = estimateReach({ rate: 1, shoppers: 7, perBucket: [3, 2, 2, 0, 0], impressions: 14, impressionsSquared: 34 });
    expect(estimate.method).toBe("exact");
    expect(estimate.reach).toEqual({ value: 7, low: 7, high: 7 });
    expect(estimate.relativeError).toBe(0);
    expect(estimate.frequency[1]!.share).toEqual({ value: 2 / 7, low: 2 / 7, high: 2 / 7 });
    expect(estimate.impressionsPerShopper).toEqual({ value: 2, low: 2, high: 2 });
  });

  it("answers nobody reached without dividing by zero", () => {
    const estimate = estimateReach({ rate: P, shoppers: 0, perBucket: none, impressions: 0, impressionsSquared: 0 });
    expect(estimate.reach).toEqual({ value: 0, low: 0, high: 0 });
    expect(estimate.relativeError).toBeNull();
    expect(estimate.impressionsPerShopper).toBeNull();
    expect(estimate.frequency.every(({ share }) => share === null)).toBe(true);
  });

  it("refuses a rate outside (0, 1] and a wrong number of buckets", () => {
    const sample: SampledShoppers = { rate: 0, shoppers: 1, perBucket: [1, 0, 0, 0, 0], impressions: 1, impressionsSquared: 1 };
    expect(() => estimateReach(sample)).toThrow(RangeError);
    expect(() => estimateReach({ ...sample, rate: 2 })).toThrow(RangeError);
    expect(() => estimateReach({ ...sample, rate: Number.NaN })).toThrow(RangeError);
    expect(() => estimateReach({ ...sample, rate: 1, perBucket: [1] })).toThrow(RangeError);
  });

  it("covers the true figures about 95% of the time, sampling a known population by the shopper hash", () => {
    // 8,000 shoppers, each seen a Poisson(1.6) number of times (at least once), drawn from a
    // seeded generator; each trial samples them by the real hash on another publisher's keys, so
    // trials are independent samples of the same population.
    let seed = 20261203;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    // By inversion: the first k whose cumulative probability passes u (k ≤ 30 covers all but 1e-25).
    const poissonAtLeastOne = (): number => {
      const u = random();
      let k = 0;
      let p = Math.exp(-1.6);
      let cumulative = p;
      while (u > cumulative && k < 30) {
        k++;
        p *= 1.6 / k;
        cumulative += p;
      }
      return k > 0 ? k : poissonAtLeastOne();
    };
    const population = Array.from({ length: 8_000 }, poissonAtLeastOne);
    const truth = { reach: population.length, perShopper: population.reduce((a, b) => a + b, 0) / population.length };
    const trueShares = FREQUENCY_BUCKETS.map((_, index) => population.filter((f) => bucketIndex(f) === index).length / population.length);
    const trials = 200;
    const covered = { reach: 0, perShopper: 0, shares: FREQUENCY_BUCKETS.map(() => 0) };
    let reachSum = 0;
    for (let trial = 0; trial < trials; trial++) {
      const perBucket = FREQUENCY_BUCKETS.map(() => 0);
      const sample = { rate: P, shoppers: 0, perBucket, impressions: 0, impressionsSquared: 0 } satisfies SampledShoppers;
      population.forEach((seen, shopper) => {
        if (!inReachSample(shopperHash(shopperKey(`pub-${trial}`, `u-${shopper}`, "s").text))) return;
        sample.shoppers++;
        perBucket[bucketIndex(seen)]!++;
        sample.impressions += seen;
        sample.impressionsSquared += seen * seen;
      });
      const estimate = estimateReach(sample);
      reachSum += estimate.reach.value;
      if (estimate.reach.low <= truth.reach && truth.reach <= estimate.reach.high) covered.reach++;
      const perShopper = estimate.impressionsPerShopper!;
      if (perShopper.low <= truth.perShopper && truth.perShopper <= perShopper.high) covered.perShopper++;
      estimate.frequency.forEach(({ share }, index) => {
        if (share!.low <= trueShares[index]! && trueShares[index]! <= share!.high) covered.shares[index]!++;
      });
    }
    // Unbiased: the mean of 200 estimates (each ±4.3%) is within 1.5% of the truth (5 standard errors).
    expect(Math.abs(reachSum / trials / truth.reach - 1)).toBeLessThan(0.015);
    // 95% intervals over 200 trials: coverage 0.95 ± 0.015, so between 0.90 and 0.99.
    for (const hits of [covered.reach, covered.perShopper, ...covered.shares.slice(0, 4)]) {
      expect(hits / trials).toBeGreaterThanOrEqual(0.9);
      expect(hits / trials).toBeLessThanOrEqual(0.99);
    }
    // Nobody here was seen 11 times or more: an empty bucket's interval starts at 0 every time.
    expect(trueShares[4]).toBe(0);
    expect(covered.shares[4]).toBe(trials);
  });
});
