// Hand-written SQL: the accept path of every order, one statement per group commit. The interface
// asks the 202 to say whether an order repeats one the publisher sent in the last 30 days
// (docs/interface-decisions.md §4), so the de-duplication decision is taken here, in the same
// statement that appends the order to conversion_log: order_receipts holds one row per
// (publisher, order); a new order inserts it, a repeat updates it only when the first receipt is
// 30 days old or more, and only then is the order appended. A concurrent identical insert waits
// on the row lock of the first and, once that commits, re-checks the condition against it, so two
// simultaneous copies append one order. Storing it in conversions, the attribution queue, is the
// settle step's (src/server/settle/settle-conversions.ts). The batch travels as one JSON
// parameter: JSON.stringify is native, where array parameters cost an escaping pass per value.
import { pgPool } from "@/server/db/pg-pool";
import type { ConversionOutcome, ConversionToStore } from "./store-conversions.sql";

/** A validated order as the log keeps it: received_at is the sender's fixed time (tests) or null for its receipt. */
export type ConversionToAppend = Omit<ConversionToStore, "received_at"> & { received_at: Date | null };

export const ORDER_DEDUP_WINDOW = "30 days";

const APPEND_SQL = `
WITH incoming AS (
  SELECT t.*, coalesce(t.received_at, now()) AS receipt_at
    FROM ROWS FROM (json_to_recordset($1::json) AS (event_id uuid, publisher_id text, order_id text, received_at timestamptz, conversion jsonb))
         WITH ORDINALITY AS t(event_id, publisher_id, order_id, received_at, conversion, n)
), receipts AS (
  INSERT INTO order_receipts (publisher_id, order_id, conversion_id, first_received_at)
  SELECT publisher_id, order_id, event_id, receipt_at FROM incoming ORDER BY n
  ON CONFLICT (publisher_id, order_id) DO UPDATE
     SET conversion_id = EXCLUDED.conversion_id, first_received_at = EXCLUDED.first_received_at
   WHERE order_receipts.first_received_at <= EXCLUDED.first_received_at - interval '${ORDER_DEDUP_WINDOW}'
  RETURNING conversion_id
)
INSERT INTO conversion_log (event_id, pinned_received_at, conversion)
SELECT event_id, received_at, conversion FROM incoming WHERE event_id IN (SELECT conversion_id FROM receipts) ORDER BY n
RETURNING event_id::text`;

/**
 * Appends a batch of validated orders to the log, each order at most once per 30 days; copies of
 * one order inside the batch count as repeats of the first. On any error nothing of the batch is
 * stored.
 */
export async function appendConversionBatch(batch: ConversionToAppend[]): Promise<ConversionOutcome[]> {
  const firstOfOrder = new Map<string, ConversionToAppend>();
  for (const conversion of batch) {
    const key = JSON.stringify([conversion.publisher_id, conversion.order_id]);
    if (!firstOfOrder.has(key)) firstOfOrder.set(key, conversion);
  }
  // Receipt rows are locked in key order, so two batches that share orders cannot deadlock.
  const unique = [...firstOfOrder.values()].sort((a, b) =>
    a.publisher_id === b.publisher_id ? compare(a.order_id, b.order_id) : compare(a.publisher_id, b.publisher_id),
  );
  const rows = unique.map(({ received_at, ...conversion }) => ({
    event_id: conversion.event_id,
    publisher_id: conversion.publisher_id,
    order_id: conversion.order_id,
    received_at,
    conversion,
  }));
  const { rows: appended } = await pgPool().query<{ event_id: string }>({ name: "conversions-append", text: APPEND_SQL, values: [JSON.stringify(rows)] });
  const stored = new Set(appended.map((row) => row.event_id));
  return batch.map((conversion) => (stored.has(conversion.event_id) ? "stored" : "duplicate"));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
