// Money is stored as integer micro-units (millionths of the currency unit): see docs/decisions.md.
export const MICROS_PER_UNIT = 1_000_000;

/** 12.34 → 12_340_000n; rounds to the nearest micro-unit. */
export function toMicros(amount: number): bigint {
  if (!Number.isFinite(amount)) throw new RangeError(`not a finite amount: ${amount}`);
  return BigInt(Math.round(amount * MICROS_PER_UNIT));
}

/** 12_340_000n → 12.34, for JSON, CSV and Parquet DOUBLE columns. */
export function fromMicros(micros: bigint | number): number {
  return Number(micros) / MICROS_PER_UNIT;
}
