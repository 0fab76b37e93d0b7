// Money is stored as integer micro-units (millionths of the currency unit): see docs/decisions.md.
export const MICROS_PER_UNIT = 1_000_000;

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
