// Reach and frequency from the shoppers sampled by hash (core/shopper-sample.ts, decision 0054).
// Each shopper is in the sample independently with probability p (a Bernoulli sample keyed by
// the shopper, not by the impression), and a sampled shopper's impressions over the range are all
// counted, so:
// - reach R = n / p, with variance n(1 − p) / p² (n sampled shoppers);
// - shoppers in a frequency bucket R_k = n_k / p, the same way;
// - a bucket's share n_k / n: a proportion over the n sampled shoppers, its variance scaled by
//   (1 − p) for the population sampled without replacement; interval by Wilson's score at 95%,
//   which stays within [0, 1] for empty or full buckets;
// - impressions per shopper Σf / n, a ratio estimator, its variance s² (1 − p) / n from Σf².
// The stores return the integers; these figures are computed here, the same for both. With p = 1
// (every shopper counted: an exact count) every interval is the value itself.

/** The frequency buckets of the report: impressions per shopper over the range. */
export const FREQUENCY_BUCKETS = [
  { bucket: "1", min: 1, max: 1 },
  { bucket: "2", min: 2, max: 2 },
  { bucket: "3-5", min: 3, max: 5 },
  { bucket: "6-10", min: 6, max: 10 },
  { bucket: "11+", min: 11, max: Number.POSITIVE_INFINITY },
] as const;

export type FrequencyBucket = (typeof FREQUENCY_BUCKETS)[number]["bucket"];

/** The bucket a shopper with `impressions` (≥ 1) falls in, by its index in FREQUENCY_BUCKETS. */
export function bucketIndex(impressions: number): number {
  return FREQUENCY_BUCKETS.findIndex(({ min, max }) => impressions >= min && impressions <= max);
}

/** What a store counts of the sampled shoppers of a scope and range. */
export interface SampledShoppers {
  /** The share of shoppers sampled, p (1 for an exact count). */
  rate: number;
  /** Sampled shoppers with at least one impression. */
  shoppers: number;
  /** Sampled shoppers per bucket, in FREQUENCY_BUCKETS' order. */
  perBucket: readonly number[];
  /** Their impressions, and the sum of each shopper's impressions squared. */
  impressions: number;
  impressionsSquared: number;
}

export interface Estimate {
  value: number;
  /** The 95% interval. */
  low: number;
  high: number;
}

export interface ReachEstimate {
  method: "sampled" | "exact";
  rate: number;
  sampledShoppers: number;
  reach: Estimate;
  /** The reach's standard error over its value (0 when exact; null with nobody reached). */
  relativeError: number | null;
  /** null with nobody reached. */
  impressionsPerShopper: Estimate | null;
  frequency: { bucket: FrequencyBucket; shoppers: Estimate; share: Estimate | null }[];
}

const Z95 = 1.959963984540054;

/** A count scaled up from the sample: at least the sampled count itself, whatever the interval says. */
function scaled(sampled: number, rate: number): Estimate {
  const value = sampled / rate;
  const half = (Z95 * Math.sqrt(sampled * (1 - rate))) / rate;
  return { value, low: Math.max(sampled, value - half), high: value + half };
}

/** Wilson's score interval for `hits` of `n`, the variance scaled by (1 − rate). */
function share(hits: number, n: number, rate: number): Estimate | null {
  if (n === 0) return null;
  const value = hits / n;
  if (rate >= 1) return { value, low: value, high: value };
  const m = n / (1 - rate);
  const z2 = Z95 * Z95;
  const centre = (value + z2 / (2 * m)) / (1 + z2 / m);
  const half = (Z95 / (1 + z2 / m)) * Math.sqrt((value * (1 - value)) / m + z2 / (4 * m * m));
  // With no hits (or all) the bound is 0 (or 1) exactly; rounding would leave it a hair inside.
  return { value, low: hits === 0 ? 0 : Math.max(0, centre - half), high: hits === n ? 1 : Math.min(1, centre + half) };
}

function perShopper({ shoppers: n, impressions, impressionsSquared, rate }: SampledShoppers): Estimate | null {
  if (n === 0) return null;
  const value = impressions / n;
  if (n === 1 || rate >= 1) return { value, low: value, high: value };
  const variance = Math.max(0, (impressionsSquared - (impressions * impressions) / n) / (n - 1));
  const half = Z95 * Math.sqrt((variance * (1 - rate)) / n);
  return { value, low: Math.max(1, value - half), high: value + half };
}

export function estimateReach(sample: SampledShoppers): ReachEstimate {
  const { rate, shoppers: n, perBucket } = sample;
  if (!(rate > 0 && rate <= 1)) throw new RangeError(`a sample rate is in (0, 1], not ${rate}`);
  if (perBucket.length !== FREQUENCY_BUCKETS.length) throw new RangeError(`one count per frequency bucket, not ${perBucket.length}`);
  const reach = scaled(n, rate);
  return {
    method: rate >= 1 ? "exact" : "sampled",
    rate,
    sampledShoppers: n,
    reach,
    relativeError: n === 0 ? null : Math.sqrt((1 - rate) / n),
    impressionsPerShopper: perShopper(sample),
    frequency: FREQUENCY_BUCKETS.map(({ bucket }, index) => ({
      bucket,
      shoppers: scaled(perBucket[index]!, rate),
      share: share(perBucket[index]!, n, rate),
    })),
  };
}
