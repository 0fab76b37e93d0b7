// The settle step of accepted orders: take the one cursor (or leave it to the worker holding it),
// read the next stretch of conversion_log in commit-safe order, de-duplicate and store the orders
// (conversions, the attribution queue) and move the cursor, in one transaction. As for beacons, a
// worker that dies leaves nothing half done, and an order whose own data fails is set aside.

import { type ConversionOutcome, type ConversionToStore, storeConversions } from "@/server/conversions/store-conversions.sql";
import { pgPool } from "@/server/db/pg-pool";
import { isolateFailures, recordSetAside } from "./isolate-failures";
import { WORKER_NAME } from "./worker-name";

export interface ConversionStep {
  taken: boolean;
  outcomes: { eventId: string; outcome: ConversionOutcome }[];
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

type Logged = ConversionToStore & { placed_at: Date };

export async function settleConversionsStep(limit: number): Promise<ConversionStep> {
  const client = await pgPool().connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const { rows: cursors } = await client.query<{ last_xid: string; last_seq: string }>({
      name: "settle-take-conversions",
      text: "SELECT last_xid::text, last_seq::text FROM conversion_cursor WHERE id = 0 FOR UPDATE SKIP LOCKED",
    });
    const cursor = cursors[0];
    const step: ConversionStep = { taken: cursor !== undefined, outcomes: [], setAside: 0 };
    if (!cursor) {
      await client.query("ROLLBACK");
      return step;
    }
    const { rows } = await client.query<{ accepted_xid: string; seq: string; event_id: string; received_at: Date; conversion: Logged }>({
      name: "settle-read-conversions",
      text: READ_STRETCH_SQL,
      values: [cursor.last_xid, cursor.last_seq, limit],
    });
    if (rows.length === 0) {
      await client.query("ROLLBACK");
      return step;
    }
    const orders: ConversionToStore[] = rows.map((row) => ({
      ...row.conversion,
      event_id: row.event_id,
      placed_at: new Date(row.conversion.placed_at),
      received_at: row.received_at,
    }));
    const outcome = await isolateFailures(
      client,
      orders,
      async (stretch) => (await storeConversions(client, stretch)).map((result, i) => ({ eventId: stretch[i]!.event_id, outcome: result })),
      (order, error) => recordSetAside(client, { eventId: order.event_id, kind: "conversion", shard: null, receivedAt: order.received_at }, error),
    );
    step.outcomes.push(...outcome.done);
    step.setAside += outcome.setAside;
    const last = rows[rows.length - 1]!;
    await client.query({
      name: "settle-move-conversion-cursor",
      text: `UPDATE conversion_cursor SET last_xid = $1::xid8, last_seq = $2::bigint, settled_orders = settled_orders + $3, settled_by = $4, updated_at = now()
              WHERE id = 0`,
      values: [last.accepted_xid, last.seq, rows.length, WORKER_NAME],
    });
    await client.query("COMMIT");
    return step;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
