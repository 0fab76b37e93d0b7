// Money is stored as integer micro-units (millionths of the currency unit): see docs/decisions/0007-money-in-micro-units.md.
export const MICROS_PER_UNIT = 1_000_000;

// Ranges of the money staff and advertisers enter, chosen with the order ranges of the conversion
// schema (src/contracts/conversion.schema.ts) so that no bigint of micro-units can overflow: a
// wallet holds at most 10^15 micro-units, and spend is charged only while the wallet is above
// zero, so a day's spend stays below the money paid in plus one event (docs/decisions/0008-amount-bounds.md).
/** Most a wallet may hold after a top-up, in currency units. */
export const MAX_WALLET_BALANCE = 1_000_000_000;
/** Largest daily budget (advertiser or campaign), in currency units. */
export const MAX_DAILY_BUDGET = 1_000_000_000;
/** Largest bid: per click (CPC) or per thousand impressions (CPM), in currency units. */
export const MAX_BID = 10_000;

/** 12.34 → 12_340_000n; rounds to the nearest micro-unit. */
export function toMicros(amount: number): bigint {
  return BigInt(toMicroUnits(amount));
}

/**
 * 12.34 → 12_340_000, as a plain number for JSON (order lines): exact while the amount stays
 * below 9 × 10^9 (2^53 micro-units), which validated prices do.
 */
export function toMicroUnits(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError(`not a finite amount: ${amount}`);
  return Math.round(amount * MICROS_PER_UNIT);
}

/** 12_340_000n → 12.34, for JSON, CSV and Parquet DOUBLE columns. */
export function fromMicros(micros: bigint | number): number {
  return Number(micros) / MICROS_PER_UNIT;
}
