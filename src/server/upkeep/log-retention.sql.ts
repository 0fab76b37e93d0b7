// Retention of the two logs (accepted beacons, accepted orders): a day is dropped whole once
// everything in it is settled and TALLY_LOG_RETENTION_DAYS have passed. Settled rows past
// retention in the default partition are deleted instead.
import sql, { type Sql } from "sql-template-tag";
import { DAY_MS, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { dayPartitions, dropPartition } from "./day-partitions.sql";

export type LogTable = "beacon_log" | "conversion_log";
export const LOG_TABLES: readonly LogTable[] = ["beacon_log", "conversion_log"];

// Rows of a log received in [from, to) and still after their cursor (not settled). Fixed texts per
// table: the table names are never built from input.
const WAITING_SQL: Record<LogTable, (from: Date, to: Date) => Sql> = {
  beacon_log: (from, to) => sql`SELECT 1 FROM settle_cursors c JOIN beacon_log l ON l.shard = c.shard AND (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                WHERE l.received_at >= ${from}::timestamptz AND l.received_at < ${to}::timestamptz LIMIT 1`,
  conversion_log: (from, to) => sql`SELECT 1 FROM conversion_cursor c JOIN conversion_log l ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                    WHERE l.received_at >= ${from}::timestamptz AND l.received_at < ${to}::timestamptz LIMIT 1`,
};
const DELETE_SETTLED_DEFAULT_SQL: Record<LogTable, (before: Date) => Sql> = {
  beacon_log: (before) => sql`DELETE FROM beacon_log_default l USING settle_cursors c
                WHERE l.shard = c.shard AND l.received_at < ${before}::timestamptz AND (l.accepted_xid, l.seq) <= (c.last_xid, c.last_seq)`,
  conversion_log: (before) => sql`DELETE FROM conversion_log_default l USING conversion_cursor c
                    WHERE l.received_at < ${before}::timestamptz AND (l.accepted_xid, l.seq) <= (c.last_xid, c.last_seq)`,
};

export interface RetentionResult {
  /** Partitions dropped, as `<table>_<YYYYMMDD>` names. */
  dropped: string[];
  /** Settled rows deleted from the default partitions. */
  deletedFromDefault: number;
}

/**
 * Drops the day partitions of both logs that ended more than `retentionDays` before `now` and hold
 * nothing still waiting to be settled, and deletes such rows from the default partitions.
 */
export async function dropSettledLogPartitions(now: Date, retentionDays: number): Promise<RetentionResult> {
  const cutoff = Date.parse(`${utcDay(now)}T00:00:00Z`) - retentionDays * DAY_MS;
  const result: RetentionResult = { dropped: [], deletedFromDefault: 0 };
  for (const partition of await dayPartitions(LOG_TABLES)) {
    if (partition.day === null || (partition.table !== "beacon_log" && partition.table !== "conversion_log")) continue;
    const start = Date.parse(`${partition.day}T00:00:00Z`);
    if (start + DAY_MS > cutoff) continue;
    const { rows } = await pgPool().query(WAITING_SQL[partition.table](new Date(start), new Date(start + DAY_MS)));
    if (rows.length > 0) continue;
    if (await dropPartition(partition.name)) result.dropped.push(partition.name);
  }
  for (const table of LOG_TABLES) {
    const { rowCount } = await pgPool().query(DELETE_SETTLED_DEFAULT_SQL[table](new Date(cutoff)));
    result.deletedFromDefault += rowCount ?? 0;
  }
  return result;
}
