// Hand-written SQL: the accept path of every order, one statement per group commit. The interface
// asks the 202 to say whether an order repeats one the publisher sent in the last 30 days
// (docs/interface-decisions.md §4), so the de-duplication decision is taken here, in the same
// statement that appends the order to conversion_log: order_receipts holds one row per
// (publisher, order); a new order inserts it, a repeat updates it only when the first receipt is
// 30 days old or more, and only then is the order appended. A concurrent identical insert waits
// on the row lock of the first and, once that commits, re-checks the condition against it, so two
// simultaneous copies append one order. Storing it in conversions, the attribution queue, is the
// settle step's (src/server/pipeline/settle/settle-conversions.ts). The batch travels as one JSON
// parameter: JSON.stringify is native, where array parameters cost an escaping pass per value.
// Each order arrives already written as JSON (its size is checked against TALLY_ORDER_MAX_BYTES
// when it is accepted), and the log keeps that size beside it, so a settle stretch is bounded in
// bytes without reading the orders it leaves for the next one. Unless the publisher credits orders
// without proof, a verified copy replaces the receipt an unverified copy took first: otherwise
// anyone who guessed an order id could send it unverified and have the real, verified order
// ignored as a repeat (docs/conversions.md, "Verified orders").
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { prepared } from "@/server/db/prepared";
import type { ConversionOutcome, ConversionToStore } from "@/server/store/conversion-rows";

/**
 * A validated order as the log keeps it: received_at is the sender's fixed time (tests) or null
 * for its receipt; total_micros (decimal digits) is its total as orderTotalMicros computes it, which
 * settling holds against the publisher's limit. Whether it is credited is settling's decision.
 */
export type ConversionToAppend = Omit<ConversionToStore, "received_at" | "credited"> & { received_at: Date | null; total_micros: string };

/** An order ready for the log: the order, and the JSON the log stores of it (all of it but received_at) with its size in bytes. */
export interface OrderToAppend {
  order: ConversionToAppend;
  json: string;
  bytes: number;
  /** A verified order of a publisher that credits only proven orders (the default): it replaces an unverified receipt. */
  supersedes: boolean;
}

/** The log's JSON of an order, and its size in bytes. */
export function orderToAppend(order: ConversionToAppend, supersedes = false): OrderToAppend {
  const { received_at: _receivedAt, ...stored } = order;
  const json = JSON.stringify(stored);
  return { order, json, bytes: Buffer.byteLength(json), supersedes };
}

export const ORDER_DEDUP_WINDOW = "30 days";

const appendSql = (batchJson: string) => sql`
WITH incoming AS (
  SELECT t.*, coalesce(t.received_at, now()) AS receipt_at
    FROM ROWS FROM (json_to_recordset(${batchJson}::json) AS (event_id uuid, publisher_id text, order_id text, received_at timestamptz, bytes int,
                                                   verified boolean, supersedes boolean, conversion jsonb))
         WITH ORDINALITY AS t(event_id, publisher_id, order_id, received_at, bytes, verified, supersedes, conversion, n)
), receipts AS (
  INSERT INTO order_receipts (publisher_id, order_id, conversion_id, first_received_at, verified)
  SELECT publisher_id, order_id, event_id, receipt_at, verified FROM incoming ORDER BY n
  ON CONFLICT (publisher_id, order_id) DO UPDATE
     SET conversion_id = EXCLUDED.conversion_id, first_received_at = EXCLUDED.first_received_at, verified = EXCLUDED.verified
   WHERE order_receipts.first_received_at <= EXCLUDED.first_received_at - ${ORDER_DEDUP_WINDOW}::interval
      OR (NOT order_receipts.verified AND EXISTS (SELECT 1 FROM incoming i WHERE i.event_id = EXCLUDED.conversion_id AND i.supersedes))
  RETURNING conversion_id
)
INSERT INTO conversion_log (event_id, pinned_received_at, bytes, conversion)
SELECT event_id, received_at, bytes, conversion FROM incoming WHERE event_id IN (SELECT conversion_id FROM receipts) ORDER BY n
RETURNING event_id::text`;

/**
 * Appends a batch of validated orders to the log, each order at most once per 30 days; copies of
 * one order inside the batch count as repeats of the first, unless a later copy supersedes an
 * unverified first one. On any error nothing of the batch is stored.
 */
export async function appendConversionBatch(batch: OrderToAppend[]): Promise<ConversionOutcome[]> {
  const firstOfOrder = new Map<string, OrderToAppend>();
  for (const item of batch) {
    const key = JSON.stringify([item.order.publisher_id, item.order.order_id]);
    const first = firstOfOrder.get(key);
    if (!first || (item.supersedes && first.order.verified_by === null)) firstOfOrder.set(key, item);
  }
  // Receipt rows are locked in key order, so two batches that share orders cannot deadlock.
  const unique = [...firstOfOrder.values()].sort(({ order: a }, { order: b }) =>
    a.publisher_id === b.publisher_id ? compare(a.order_id, b.order_id) : compare(a.publisher_id, b.publisher_id),
  );
  // The orders' own JSON is put in place as it is: written once, when each was accepted.
  const rows = unique.map(
    ({ order, json, bytes, supersedes }) =>
      `{"event_id":${JSON.stringify(order.event_id)},"publisher_id":${JSON.stringify(order.publisher_id)},"order_id":${JSON.stringify(order.order_id)},` +
      `"received_at":${JSON.stringify(order.received_at)},"bytes":${bytes},"verified":${order.verified_by !== null},"supersedes":${supersedes},"conversion":${json}}`,
  );
  const { rows: appended } = await pgPool().query<{ event_id: string }>(prepared("conversions-append", appendSql(`[${rows.join(",")}]`)));
  const stored = new Set(appended.map((row) => row.event_id));
  return batch.map(({ order }) => (stored.has(order.event_id) ? "stored" : "duplicate"));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
