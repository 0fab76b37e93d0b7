// Which shoppers the reach and frequency report counts (decision 0054): a shopper is in the
// sample for good when the hash of its key falls under a threshold, so any union of days, ads,
// campaigns or publishers is the sample of that union and each sampled shopper's frequency over
// a range is exact. The hash is the first 8 bytes of the key's SHA-256, read big-endian as a
// signed 64-bit number: Node, Postgres (`sha256`) and ClickHouse (`SHA256`) all compute it
// (store/postgres/shopper-hash.sql.ts, store/clickhouse/shopper-hash.sql.ts), so rows written by
// either store, or recomputed from either's history, fall in the same sample.
//
// A shopper is known by `user_id` on one publisher (attribution matches on the same publisher and
// `user_id`): no identity spans publishers. Events without a `user_id` have only their session,
// counted apart and never added to reach. The parts are joined by U+001F, which no id may hold
// (the collector refuses control characters in ids), so no two keys can join to the same text.
import { createHash } from "node:crypto";

/** One shopper in 2^REACH_SAMPLE_BITS is sampled: 1/16. */
export const REACH_SAMPLE_BITS = 4;

const SEPARATOR = "\u001f";

/** A shopper's key as hashed, and whether it is a stable shopper (`user_id`) or a session alone. */
export interface ShopperKey {
  keyed: boolean;
  text: string;
}

export function shopperKey(publisherId: string, userId: string | null, sessionId: string): ShopperKey {
  const keyed = userId !== null && userId !== "";
  return { keyed, text: [keyed ? "u" : "s", publisherId, keyed ? userId : sessionId].join(SEPARATOR) };
}

/** The first 8 bytes of the UTF-8 key's SHA-256 as a signed 64-bit integer (big-endian). */
export function shopperHash(text: string): bigint {
  return createHash("sha256").update(text, "utf8").digest().readBigInt64BE(0);
}

/** Whether a hash is in the sample of rate 2^-bits: 0 ≤ hash < 2^(64 − bits), i.e. its unsigned value under that share of 2^64. */
export function inReachSample(hash: bigint, bits: number = REACH_SAMPLE_BITS): boolean {
  return hash >= 0n && hash < 1n << BigInt(64 - bits);
}
