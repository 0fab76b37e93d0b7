// Hand-written SQL: where settling stands (settled-horizon.ts), from each log's cursor.
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { prepared } from "@/server/db/prepared";

/**
 * Receipt time of the first beacon or order still waiting to be settled (null when none waits).
 * The first in each shard's order (and the orders' one order), which is commit order: receipt
 * times follow it to within the few milliseconds between a batch's timestamp and its commit
 * (SETTLE_HORIZON_MARGIN_MS).
 */
export async function oldestUnsettled(): Promise<Date | null> {
  const { rows } = await pgPool().query<{ oldest: Date | null }>(
    prepared(
      "settle-oldest-waiting",
      sql`SELECT least(
             (SELECT min(first.received_at)
                FROM settle_cursors c
                CROSS JOIN LATERAL (
                  SELECT l.received_at FROM beacon_log l
                   WHERE l.shard = c.shard AND (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                   ORDER BY l.accepted_xid, l.seq
                   LIMIT 1) AS first),
             (SELECT l.received_at FROM conversion_cursor c
                JOIN conversion_log l ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
               ORDER BY l.accepted_xid, l.seq
               LIMIT 1)) AS oldest`,
    ),
  );
  return rows[0]?.oldest ?? null;
}
