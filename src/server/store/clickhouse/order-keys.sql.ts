// Hand-written SQL: the distinct orders of the rollups as order keys (migration 11, decision 0042
// "Order keys"): one row per report key and order id (a converted click's event id), with what
// the id counts toward as bits of `flags`, OR-ed together (SimpleAggregateFunction(groupBitOr))
// when merges meet the same key and id again. A report's order figure is uniqExactIf(id, its bit):
// exact over any rows merged or not, since an id's bits only ever gain. order_rollups keeps the
// same figures as uniqExact states, seven sets of ids made in memory for each row a read touches;
// an advertiser's 30 days by ad read them in 49 ms, the keys in 15 (bench/results.md).
// The keys are complete from `since` (order_keys_start): the migration counted the attributions
// ClickHouse held then, and days whose raw rows its TTL had dropped keep their states, which a
// read reaching them uses instead (zoned-source.sql.ts, ordersFormFrom).
/** An attribution line's credit, as every view of the rollups tells them apart. */
export const SKU = "match = 'sku'";
export const SKU_CREDIT = `${SKU} AND credited`;
export const CLICK_CREDIT = `${SKU_CREDIT} AND event_kind = 'click'`;
export const HALO_CREDIT = "match = 'halo' AND credited";
export const NEW_TO_BRAND = `${SKU_CREDIT} AND new_to_brand`;

export const ORDER_FIGURES = [
  "conversions",
  "unverified_conversions",
  "uncredited_conversions",
  "conversions_click",
  "converted_clicks",
  "halo_conversions",
  "ntb_conversions",
] as const;
export type OrderFigure = (typeof ORDER_FIGURES)[number];

/** Each figure's bit, and the condition on an attribution line that sets it (converted clicks: the click rows). */
export const ORDER_KEY_BITS: Record<OrderFigure, { bit: number; line: string | null }> = {
  conversions: { bit: 1, line: SKU_CREDIT },
  unverified_conversions: { bit: 2, line: `${SKU} AND NOT verified` },
  uncredited_conversions: { bit: 4, line: `${SKU} AND NOT credited` },
  conversions_click: { bit: 8, line: CLICK_CREDIT },
  converted_clicks: { bit: 16, line: null },
  halo_conversions: { bit: 32, line: HALO_CREDIT },
  ntb_conversions: { bit: 64, line: NEW_TO_BRAND },
};

/** The lines that set a bit: every line of the campaign's own SKU, and credited halo lines. */
export const ORDER_KEY_LINES = `(${SKU} OR ${HALO_CREDIT})`;
/** The clicks credited with a line of their own SKU: a converted click, counted on its own day. */
export const CONVERTED_CLICK_LINES = CLICK_CREDIT;

/** An attribution line's bits (each condition's bit, distinct bits summed: their OR). */
export const LINE_FLAGS = `toUInt8(${Object.values(ORDER_KEY_BITS)
  .filter(({ line }) => line !== null)
  .map(({ bit, line }) => `if(${line}, ${bit}, 0)`)
  .join(" + ")})`;
export const CLICK_FLAGS = `toUInt8(${ORDER_KEY_BITS.converted_clicks.bit})`;

/** What a read of order keys (as `alias`) selects for `figure`. */
export const keyCount = (figure: OrderFigure, alias: string) => `uniqExactIf(${alias}.id, bitAnd(${alias}.flags, ${ORDER_KEY_BITS[figure].bit}) != 0)`;
