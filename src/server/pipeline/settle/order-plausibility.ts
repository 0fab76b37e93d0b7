// What settling holds an order against besides its session's allowance: its publisher's
// plausibility limits (the largest order total, the largest line quantity; Tally's defaults
// TALLY_MAX_ORDER_TOTAL and TALLY_MAX_LINE_QUANTITY where the publisher set none) and whether the
// publisher credits orders without proof, which decides if an unverified order is credited. Read once per
// stretch for the stretch's publishers, in its transaction, so a change applies from the next
// stretch on (docs/conversions.md, "Plausibility limits").
import type pg from "pg";
import { decimalOf } from "@/contracts/order-token";
import { fromMicros } from "@/server/core/money";
import { defaultTrust, type PublisherTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import type { ConversionItemToStore, ConversionToStore } from "@/server/store/conversion-rows";
import { publisherTrustRows } from "./order-plausibility.sql";

/** The rules that set an order aside by its content, as settle_set_aside.rule says them. */
export type PlausibilityRule = "order_total_limit" | "line_quantity_limit";

/** The settings of the publishers of `publisherIds`, with Tally's defaults where a publisher has none. */
export async function publisherTrust(client: pg.PoolClient, publisherIds: string[]): Promise<Map<string, PublisherTrust>> {
  const defaults = defaultTrust();
  const { rows } = await client.query<{
    id: string;
    credit_unverified_conversions: boolean;
    max_order_total_micros: string | null;
    max_line_quantity: number | null;
  }>(publisherTrustRows([...new Set(publisherIds)]));
  return new Map(
    rows.map((row) => [
      row.id,
      {
        creditUnverified: row.credit_unverified_conversions,
        maxOrderTotalMicros: row.max_order_total_micros === null ? defaults.maxOrderTotalMicros : BigInt(row.max_order_total_micros),
        maxLineQuantity: row.max_line_quantity ?? defaults.maxLineQuantity,
      },
    ]),
  );
}

/** A line's value from what the log keeps of it (micro-units and quantity), for orders logged before totals were: round half up. */
function lineMicros(item: ConversionItemToStore): bigint {
  const quantity = decimalOf(item.quantity);
  const n = BigInt(item.promotional_price_micros) * quantity.digits;
  if (quantity.scale <= 0) return n * 10n ** BigInt(-quantity.scale);
  const divisor = 10n ** BigInt(quantity.scale);
  return n / divisor + ((n % divisor) * 2n >= divisor ? 1n : 0n);
}

/** The order's total as intake computed it (orderTotalMicros), or from its lines for an order logged without one. */
export function totalOf(order: ConversionToStore & { total_micros?: string }): bigint {
  return order.total_micros !== undefined ? BigInt(order.total_micros) : order.items.reduce((sum, item) => sum + lineMicros(item), 0n);
}

const amount = (micros: bigint) => fromMicros(micros).toLocaleString("en", { maximumFractionDigits: 6 });

/** The rule an order breaks, with the reason an operator and the publisher read; null when it is plausible. */
export function implausibility(order: ConversionToStore, totalMicros: bigint, trust: PublisherTrust): { rule: PlausibilityRule; reason: string } | null {
  // The total first: it is the figure a report would have taken.
  if (totalMicros > trust.maxOrderTotalMicros) {
    return {
      rule: "order_total_limit",
      reason: `the order's total, ${amount(totalMicros)}, is above the publisher's largest order total, ${amount(trust.maxOrderTotalMicros)}`,
    };
  }
  const line = order.items.findIndex((item) => item.quantity > trust.maxLineQuantity);
  if (line >= 0) {
    return {
      rule: "line_quantity_limit",
      reason: `line ${line + 1} (${order.items[line]!.sku}) has a quantity of ${order.items[line]!.quantity.toLocaleString("en")}, above the publisher's largest line quantity, ${trust.maxLineQuantity.toLocaleString("en")}`,
    };
  }
  return null;
}
