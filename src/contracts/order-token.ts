// The order total and the message of an order token, exactly as Tally computes them: a public
// contract, since a publisher's server signs the same message (docs/conversions.md, "Signing an
// order token", shows this computation in Node.js and Python, and a test runs both against this
// file). Pure and dependency-free: BigInt arithmetic on the decimal digits of the numbers sent,
// so no floating-point product can round differently on the two sides.

/** What the total reads of an order line. */
export interface TotalLine {
  quantity: number;
  promotional_price: number;
}

const MICROS_PER_UNIT = 1_000_000n;

/**
 * A JSON number as an exact decimal: `digits` × 10^-`scale`, from the shortest decimal that reads
 * back as the same number (JavaScript's String(), Python's repr()).
 */
export function decimalOf(value: number): { digits: bigint; scale: number } {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a finite amount of at least 0: ${value}`);
  const [mantissa = "0", exponent = "0"] = String(value).toLowerCase().split("e");
  const [whole = "0", fraction = ""] = mantissa.split(".");
  return { digits: BigInt(whole + fraction), scale: fraction.length - Number(exponent) };
}

/** n × 10^-scale rounded to an integer, halves up (n is never negative here). */
function roundScaled(n: bigint, scale: number): bigint {
  if (scale <= 0) return n * 10n ** BigInt(-scale);
  const divisor = 10n ** BigInt(scale);
  return n / divisor + ((n % divisor) * 2n >= divisor ? 1n : 0n);
}

/**
 * The order total in integer micro-units: for each line, promotional_price × 1,000,000 × quantity
 * computed exactly on the numbers' decimals and rounded half up to an integer; then the sum.
 * At most 5 × 10^18 for a valid order (500 lines of 10^6 × 10^4): a bigint.
 */
export function orderTotalMicros(items: readonly TotalLine[]): bigint {
  let total = 0n;
  for (const item of items) {
    const price = decimalOf(item.promotional_price);
    const quantity = decimalOf(item.quantity);
    total += roundScaled(price.digits * quantity.digits * MICROS_PER_UNIT, price.scale + quantity.scale);
  }
  return total;
}

/**
 * What an order token signs: the order id, a line feed, and the total in micro-units as decimal
 * digits. An order id cannot hold a line feed (it is an identifier), so the message reads one way only.
 */
export function orderTokenMessage(orderId: string, totalMicros: bigint): string {
  return `${orderId}\n${totalMicros.toString()}`;
}
