// The settle step of accepted orders (the step itself: stretch.ts): the next stretch of
// conversion_log under its one cursor, stored in conversions, the attribution queue (repeats never
// reach the log: the receipt is taken when an order is accepted); an order whose own data fails is
// set aside.
import type { ConversionToStore } from "@/server/conversions/store-conversions.sql";
import { store } from "@/server/store";
import { type LogPosition, recordSetAside, settleNextStretch } from "./stretch";
import { WORKER_NAME } from "./worker-name";

export interface ConversionStep {
  taken: boolean;
  /** Event ids of the orders stored. */
  stored: string[];
  setAside: number;
}

// See settle-shard.ts: below the oldest running transaction, in (transaction id, sequence) order,
// the ORDER BY naming the table's columns.
const READ_STRETCH_SQL = `
SELECT l.accepted_xid::text, l.seq::text, l.event_id::text, coalesce(l.pinned_received_at, l.received_at) AS received_at, l.conversion
  FROM conversion_log l
 WHERE (l.accepted_xid, l.seq) > ($1::xid8, $2::bigint) AND l.accepted_xid < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY l.accepted_xid, l.seq
 LIMIT $3`;

interface LoggedOrder extends LogPosition {
  event_id: string;
  received_at: Date;
  /** The order as accepted (JSON: placed_at is a string). */
  conversion: ConversionToStore;
}

export async function settleConversionsStep(limit: number): Promise<ConversionStep> {
  const { taken, done, setAside } = await settleNextStretch({
    takeCursor: async (client) =>
      (
        await client.query<{ last_xid: string; last_seq: string }>({
          name: "settle-take-conversions",
          text: "SELECT last_xid::text, last_seq::text FROM conversion_cursor WHERE id = 0 FOR UPDATE SKIP LOCKED",
        })
      ).rows[0],
    readStretch: async (client, cursor) =>
      (
        await client.query<LoggedOrder>({
          name: "settle-read-conversions",
          text: READ_STRETCH_SQL,
          values: [cursor.last_xid, cursor.last_seq, limit],
        })
      ).rows,
    toItem: (row): ConversionToStore => ({
      ...row.conversion,
      event_id: row.event_id,
      placed_at: new Date(row.conversion.placed_at),
      received_at: row.received_at,
    }),
    settle: async (client, orders) => {
      await store().settled.storeConversions(client, orders);
      return orders.map((order) => order.event_id);
    },
    setAside: (client, order, error) =>
      recordSetAside(client, { eventId: order.event_id, kind: "conversion", shard: null, receivedAt: order.received_at }, error),
    moveCursor: async (client, last, count) => {
      await client.query({
        name: "settle-move-conversion-cursor",
        text: `UPDATE conversion_cursor SET last_xid = $1::xid8, last_seq = $2::bigint, settled_orders = settled_orders + $3, settled_by = $4, updated_at = now()
                WHERE id = 0`,
        values: [last.accepted_xid, last.seq, count, WORKER_NAME],
      });
    },
  });
  return { taken, stored: done, setAside };
}
