// Hand-written SQL: the accept path of every order. One insert per group commit appends the
// validated orders to conversion_log and nothing else (no de-duplication look-up, no row lock on
// order_receipts), and the 202 follows the commit; the settle step decides repeats and writes
// conversions (src/server/settle/settle-conversions.ts). The batch travels as one JSON parameter.
import { pgPool } from "@/server/db/pg-pool";
import type { ConversionToStore } from "./store-conversions.sql";

/** A validated order as the log keeps it: received_at is the sender's fixed time (tests) or null for its receipt. */
export type ConversionToAppend = Omit<ConversionToStore, "received_at"> & { received_at: Date | null };

const APPEND_SQL = `
INSERT INTO conversion_log (event_id, pinned_received_at, conversion)
SELECT t.event_id, t.received_at, t.conversion
  FROM ROWS FROM (json_to_recordset($1::json) AS (event_id uuid, received_at timestamptz, conversion jsonb))
       WITH ORDINALITY AS t(event_id, received_at, conversion, n)
 ORDER BY t.n`;

export async function appendConversionBatch(batch: ConversionToAppend[]): Promise<void> {
  const rows = batch.map(({ event_id, received_at, ...conversion }) => ({ event_id, received_at, conversion: { event_id, ...conversion } }));
  await pgPool().query({ name: "conversions-append", text: APPEND_SQL, values: [JSON.stringify(rows)] });
}
