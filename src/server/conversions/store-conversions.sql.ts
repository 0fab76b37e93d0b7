// Hand-written SQL: conversions arrive at checkout rate from every publisher, and a batch of
// orders with their items is one statement (three inserts in CTEs fed by arrays), where the ORM
// would take a round trip per row.
import { pgPool } from "@/server/db/pg-pool";

export interface ConversionItemToStore {
  id: string;
  sku: string;
  productId: string | null;
  sellerId: string | null;
  quantity: number;
  priceMicros: bigint;
  promotionalPriceMicros: bigint;
}

export interface ConversionToStore {
  eventId: string;
  publisherId: string;
  orderId: string;
  userId: string;
  sessionId: string;
  channel: string;
  site: string;
  placedAt: Date;
  gender: string | null;
  uf: string | null;
  city: string | null;
  isCompany: boolean | null;
  emailHashed: string;
  phoneHashed: string | null;
  socialIdHashed: string | null;
  firstNameHashed: string | null;
  lastNameHashed: string | null;
  receivedAt: Date;
  items: ConversionItemToStore[];
}

/** `stored`, or `duplicate` when the order was first received less than 30 days before. */
export type ConversionOutcome = "stored" | "duplicate";

export const ORDER_DEDUP_WINDOW = "30 days";

// order_receipts holds one row per (publisher, order). A new order inserts it; a repeat updates
// it only when the first receipt is 30 days old or more, and only then is the order stored again.
// A concurrent identical insert waits on the row lock of the first and, once that commits,
// re-checks the condition against it, so two simultaneous copies store one order.
const STORE_SQL = `
WITH incoming AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[])
           AS t(conversion_id, publisher_id, order_id, received_at)
), receipts AS (
  INSERT INTO order_receipts (publisher_id, order_id, conversion_id, first_received_at)
  SELECT publisher_id, order_id, conversion_id, received_at FROM incoming
  ON CONFLICT (publisher_id, order_id) DO UPDATE
     SET conversion_id = EXCLUDED.conversion_id, first_received_at = EXCLUDED.first_received_at
   WHERE order_receipts.first_received_at <= EXCLUDED.first_received_at - interval '${ORDER_DEDUP_WINDOW}'
  RETURNING conversion_id
), orders AS (
  INSERT INTO conversions (event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at,
                           gender, uf, city, is_company, email_hashed, phone_hashed, social_id_hashed,
                           first_name_hashed, last_name_hashed, received_at)
  SELECT c.* FROM unnest($1::uuid[], $2::text[], $3::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                         $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::boolean[], $14::text[],
                         $15::text[], $16::text[], $17::text[], $18::text[], $4::timestamptz[])
           AS c(event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, gender, uf, city,
                is_company, email_hashed, phone_hashed, social_id_hashed, first_name_hashed, last_name_hashed, received_at)
   WHERE c.event_id IN (SELECT conversion_id FROM receipts)
  RETURNING event_id
), lines AS (
  INSERT INTO conversion_items (id, conversion_id, position, sku, product_id, seller_id, quantity,
                                price_micros, promotional_price_micros)
  SELECT i.* FROM unnest($19::uuid[], $20::uuid[], $21::int[], $22::text[], $23::text[], $24::text[],
                         $25::float8[], $26::bigint[], $27::bigint[])
           AS i(id, conversion_id, position, sku, product_id, seller_id, quantity, price_micros, promotional_price_micros)
   WHERE i.conversion_id IN (SELECT event_id FROM orders)
)
SELECT conversion_id::text FROM receipts`;

/**
 * Stores a batch of accepted conversions with their items in one transaction, each order at most
 * once per 30 days. Copies of one order inside the batch count as repeats of the first.
 */
export async function storeConversionBatch(batch: ConversionToStore[]): Promise<ConversionOutcome[]> {
  const outcomes: ConversionOutcome[] = batch.map(() => "duplicate");
  const firstOfOrder = new Map<string, number>();
  batch.forEach((conversion, index) => {
    const key = JSON.stringify([conversion.publisherId, conversion.orderId]);
    if (!firstOfOrder.has(key)) firstOfOrder.set(key, index);
  });
  // Rows are locked in key order, so two batches that share orders cannot deadlock.
  const unique = [...firstOfOrder.values()]
    .map((index) => batch[index]!)
    .sort((a, b) => (a.publisherId === b.publisherId ? compare(a.orderId, b.orderId) : compare(a.publisherId, b.publisherId)));

  const items = unique.flatMap((conversion) => conversion.items.map((item, position) => ({ conversion, item, position })));
  const column = <T>(pick: (c: ConversionToStore) => T) => unique.map(pick);
  const itemColumn = <T>(pick: (row: (typeof items)[number]) => T) => items.map(pick);

  const { rows } = await pgPool().query<{ conversion_id: string }>({
    name: "tally_store_conversions",
    text: STORE_SQL,
    values: [
      column((c) => c.eventId),
      column((c) => c.publisherId),
      column((c) => c.orderId),
      column((c) => c.receivedAt),
      column((c) => c.userId),
      column((c) => c.sessionId),
      column((c) => c.channel),
      column((c) => c.site),
      column((c) => c.placedAt),
      column((c) => c.gender),
      column((c) => c.uf),
      column((c) => c.city),
      column((c) => c.isCompany),
      column((c) => c.emailHashed),
      column((c) => c.phoneHashed),
      column((c) => c.socialIdHashed),
      column((c) => c.firstNameHashed),
      column((c) => c.lastNameHashed),
      itemColumn((row) => row.item.id),
      itemColumn((row) => row.conversion.eventId),
      itemColumn((row) => row.position),
      itemColumn((row) => row.item.sku),
      itemColumn((row) => row.item.productId),
      itemColumn((row) => row.item.sellerId),
      itemColumn((row) => row.item.quantity),
      itemColumn((row) => row.item.priceMicros.toString()),
      itemColumn((row) => row.item.promotionalPriceMicros.toString()),
    ],
  });
  const stored = new Set(rows.map((row) => row.conversion_id));
  batch.forEach((conversion, index) => {
    if (stored.has(conversion.eventId)) outcomes[index] = "stored";
  });
  return outcomes;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
