// Hand-written SQL: the settle step of accepted orders (src/server/settle/settle-conversions.ts).
// A stretch of orders is one statement (two inserts fed by one JSON parameter), where the ORM
// would take a round trip per row.
import type pg from "pg";

/** An order line as conversions.items keeps it (micro-units as JSON numbers: below 2^53). */
export interface ConversionItemToStore {
  sku: string;
  product_id: string | null;
  seller_id: string | null;
  quantity: number;
  price_micros: number;
  promotional_price_micros: number;
}

/** An accepted order, in the column names of `conversions`. */
export interface ConversionToStore {
  event_id: string;
  publisher_id: string;
  order_id: string;
  user_id: string;
  session_id: string;
  channel: string;
  site: string;
  placed_at: Date;
  gender: string | null;
  uf: string | null;
  city: string | null;
  is_company: boolean | null;
  email_hashed: string;
  phone_hashed: string | null;
  social_id_hashed: string | null;
  first_name_hashed: string | null;
  last_name_hashed: string | null;
  /** When the order was received: its receipt in the log, or the time its sender fixed (tests). */
  received_at: Date;
  items: ConversionItemToStore[];
}

/** `stored`, or `duplicate` when the order was first received less than 30 days before. */
export type ConversionOutcome = "stored" | "duplicate";

export const ORDER_DEDUP_WINDOW = "30 days";

// order_receipts holds one row per (publisher, order). A new order inserts it; a repeat updates
// it only when the first receipt is 30 days old or more, and only then is the order stored again.
// A concurrent identical insert waits on the row lock of the first and, once that commits,
// re-checks the condition against it, so two simultaneous copies store one order.
// The batch travels as one JSON parameter: JSON.stringify is native, where 27 array parameters
// cost an escaping pass per value in node-postgres.
const STORE_SQL = `
WITH incoming AS (
  SELECT * FROM json_to_recordset($1::json)
           AS t(event_id uuid, publisher_id text, order_id text, user_id text, session_id text, channel text, site text,
                placed_at timestamptz, gender text, uf text, city text, is_company boolean, email_hashed text,
                phone_hashed text, social_id_hashed text, first_name_hashed text, last_name_hashed text,
                received_at timestamptz, items jsonb)
), receipts AS (
  INSERT INTO order_receipts (publisher_id, order_id, conversion_id, first_received_at)
  SELECT publisher_id, order_id, event_id, received_at FROM incoming
  ON CONFLICT (publisher_id, order_id) DO UPDATE
     SET conversion_id = EXCLUDED.conversion_id, first_received_at = EXCLUDED.first_received_at
   WHERE order_receipts.first_received_at <= EXCLUDED.first_received_at - interval '${ORDER_DEDUP_WINDOW}'
  RETURNING conversion_id
)
INSERT INTO conversions (event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, gender, uf,
                         city, is_company, email_hashed, phone_hashed, social_id_hashed, first_name_hashed,
                         last_name_hashed, received_at, items)
SELECT event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, gender, uf,
       city, is_company, email_hashed, phone_hashed, social_id_hashed, first_name_hashed,
       last_name_hashed, received_at, items
  FROM incoming WHERE event_id IN (SELECT conversion_id FROM receipts)
RETURNING event_id::text`;

/**
 * Stores a stretch of accepted conversions with their items on `client` (inside the settle
 * transaction), each order at most once per 30 days. Copies of one order inside the stretch count
 * as repeats of the first.
 */
export async function storeConversions(client: pg.PoolClient, batch: ConversionToStore[]): Promise<ConversionOutcome[]> {
  const firstOfOrder = new Map<string, ConversionToStore>();
  for (const conversion of batch) {
    const key = JSON.stringify([conversion.publisher_id, conversion.order_id]);
    if (!firstOfOrder.has(key)) firstOfOrder.set(key, conversion);
  }
  // Rows are locked in key order, so two stretches that share orders cannot deadlock.
  const unique = [...firstOfOrder.values()].sort((a, b) =>
    a.publisher_id === b.publisher_id ? compare(a.order_id, b.order_id) : compare(a.publisher_id, b.publisher_id),
  );
  const { rows } = await client.query<{ event_id: string }>({
    name: "tally_store_conversions",
    text: STORE_SQL,
    values: [JSON.stringify(unique)],
  });
  const stored = new Set(rows.map((row) => row.event_id));
  return batch.map((conversion) => (stored.has(conversion.event_id) ? "stored" : "duplicate"));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
