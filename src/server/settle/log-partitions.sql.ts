// Upkeep of the two logs' day partitions (accepted beacons, accepted orders): each day's partition
// is created ahead of time, and a day is dropped whole once everything in it is settled and the
// retention has passed (dropping a partition costs the same whatever it holds, where deleting
// rows would cost per row and leave the table to vacuum). The default partition only catches rows
// when upkeep has not run; its settled rows past retention are deleted instead.
import type pg from "pg";
import { DAY_MS, utcDay } from "@/server/days";
import { pgPool } from "@/server/db/pg-pool";

/** Day partitions kept ready ahead of today, so a missed upkeep run or two costs nothing. */
export const PARTITION_DAYS_AHEAD = 7;

export type LogTable = "beacon_log" | "conversion_log";
export const LOG_TABLES: readonly LogTable[] = ["beacon_log", "conversion_log"];

// Rows of a log received in [$1, $2) and still after their cursor (not settled). Fixed texts per
// table: the table names are never built from input.
const WAITING_SQL: Record<LogTable, string> = {
  beacon_log: `SELECT 1 FROM settle_cursors c JOIN beacon_log l ON l.shard = c.shard AND (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                WHERE l.received_at >= $1::timestamptz AND l.received_at < $2::timestamptz LIMIT 1`,
  conversion_log: `SELECT 1 FROM conversion_cursor c JOIN conversion_log l ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                    WHERE l.received_at >= $1::timestamptz AND l.received_at < $2::timestamptz LIMIT 1`,
};
const DELETE_SETTLED_DEFAULT_SQL: Record<LogTable, string> = {
  beacon_log: `DELETE FROM beacon_log_default l USING settle_cursors c
                WHERE l.shard = c.shard AND l.received_at < $1::timestamptz AND (l.accepted_xid, l.seq) <= (c.last_xid, c.last_seq)`,
  conversion_log: `DELETE FROM conversion_log_default l USING conversion_cursor c
                    WHERE l.received_at < $1::timestamptz AND (l.accepted_xid, l.seq) <= (c.last_xid, c.last_seq)`,
};

const partitionName = (table: LogTable, day: string) => `${table}_${day.replaceAll("-", "")}`;

export interface LogPartition {
  table: LogTable;
  name: string;
  /** YYYY-MM-DD, or null for the default partition. */
  day: string | null;
  bytes: number;
}

/** Every partition of both logs, with its size on disk. */
export async function logPartitions(client?: pg.PoolClient): Promise<LogPartition[]> {
  const { rows } = await (client ?? pgPool()).query<{ parent: LogTable; name: string; bytes: string }>(
    `SELECT p.relname AS parent, c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname IN ('beacon_log', 'conversion_log')
      ORDER BY p.relname, c.relname`,
  );
  return rows.map((row) => {
    const match = /_(\d{4})(\d{2})(\d{2})$/.exec(row.name);
    return { table: row.parent, name: row.name, day: match ? `${match[1]}-${match[2]}-${match[3]}` : null, bytes: Number(row.bytes) };
  });
}

/**
 * Creates the partitions of `from`'s day through PARTITION_DAYS_AHEAD days after it that do not
 * exist yet, for `table`; returns the days it created. A day whose rows already sit in the default
 * partition is left there (Postgres refuses to create a partition over them); they settle and age
 * out from the default partition like any other row.
 */
export async function createLogPartitions(from: Date, table: LogTable = "beacon_log"): Promise<string[]> {
  const existing = new Set((await logPartitions()).filter((p) => p.table === table).map((p) => p.day));
  const created: string[] = [];
  for (let n = 0; n <= PARTITION_DAYS_AHEAD; n++) {
    const day = utcDay(new Date(from.getTime() + n * DAY_MS));
    if (existing.has(day)) continue;
    const next = utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));
    const client = await pgPool().connect();
    try {
      await client.query("BEGIN");
      // Every web process and worker runs upkeep: one at a time creates, so two never race on
      // the same new table (IF NOT EXISTS does not make a simultaneous CREATE safe).
      await client.query("SELECT pg_advisory_xact_lock(hashtext('tally log upkeep'))");
      // Rows of the day in the default partition would make the CREATE fail; a quick look first.
      const { rows: made } = await client.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [partitionName(table, day)]);
      const { rows } = await client.query(`SELECT 1 FROM ${table}_default WHERE received_at >= $1::date AND received_at < $2::date LIMIT 1`, [day, next]);
      if (made[0]!.t === null && rows.length === 0) {
        await client.query(`CREATE TABLE IF NOT EXISTS ${partitionName(table, day)} PARTITION OF ${table} FOR VALUES FROM ('${day}') TO ('${next}')`);
        created.push(day);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  return created;
}

/**
 * Dropping a partition locks the whole log for an instant; it waits at most 2 s for the statements
 * under way, so accepts never queue behind it for longer, and the next upkeep run tries again.
 */
async function dropPartition(name: string): Promise<boolean> {
  const client = await pgPool().connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL lock_timeout = '2s'");
    await client.query(`DROP TABLE IF EXISTS ${name}`);
    await client.query("COMMIT");
    return true;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    if ((error as { code?: string }).code === "55P03") return false;
    throw error;
  } finally {
    client.release();
  }
}

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
  for (const partition of await logPartitions()) {
    if (partition.day === null) continue;
    const start = Date.parse(`${partition.day}T00:00:00Z`);
    if (start + DAY_MS > cutoff) continue;
    const { rows } = await pgPool().query(WAITING_SQL[partition.table], [new Date(start), new Date(start + DAY_MS)]);
    if (rows.length > 0) continue;
    if (await dropPartition(partition.name)) result.dropped.push(partition.name);
  }
  for (const table of LOG_TABLES) {
    const { rowCount } = await pgPool().query(DELETE_SETTLED_DEFAULT_SQL[table], [new Date(cutoff)]);
    result.deletedFromDefault += rowCount ?? 0;
  }
  return result;
}

export interface UpkeepResult extends RetentionResult {
  /** Partitions created, as `<table>_<YYYYMMDD>` names. */
  created: string[];
}

/** The upkeep job: partitions ahead for both logs, then retention. */
export async function logUpkeep(now: Date, retentionDays: number): Promise<UpkeepResult> {
  const created: string[] = [];
  for (const table of LOG_TABLES) created.push(...(await createLogPartitions(now, table)).map((day) => partitionName(table, day)));
  return { created, ...(await dropSettledLogPartitions(now, retentionDays)) };
}
