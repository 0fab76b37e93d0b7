// How far settling has come, for the jobs that must not run ahead of it and for the lag operators
// watch. Attribution credits an order only with the touches that were accepted before it, and an
// export batch must not close over events or orders that are still in a log, so both stop at the
// oldest one still waiting.
import { pgPool } from "@/server/db/pg-pool";

/**
 * Receipt time of the first beacon or order still waiting to be settled (null when none waits).
 * The first in each shard's order (and the orders' one order), which is commit order: receipt
 * times follow it to within the few milliseconds between a batch's timestamp and its commit
 * (SETTLE_HORIZON_MARGIN_MS).
 */
export async function oldestUnsettled(): Promise<Date | null> {
  const { rows } = await pgPool().query<{ oldest: Date | null }>({
    name: "settle-oldest-waiting",
    text: `SELECT least(
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
  });
  return rows[0]?.oldest ?? null;
}

/** Slack for the order of receipt times against commit order, and for the app's clock against the database's. */
export const SETTLE_HORIZON_MARGIN_MS = 1_000;

/**
 * Everything accepted before this time is settled: `limit` when nothing waits, else a margin
 * before the oldest beacon or order waiting.
 */
export async function settledBefore(limit: Date): Promise<Date> {
  const oldest = await oldestUnsettled();
  if (oldest === null) return limit;
  return new Date(Math.min(limit.getTime(), oldest.getTime() - SETTLE_HORIZON_MARGIN_MS));
}
