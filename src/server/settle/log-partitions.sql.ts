// Upkeep of the beacon log's day partitions: each day's partition is created ahead of time, and a
// day is dropped whole once every event in it is settled and the retention has passed (dropping
// a partition costs the same whatever it holds, where deleting rows would cost per row and leave
// the table to vacuum). The default partition only catches rows when upkeep has not run; its
// settled rows past retention are deleted instead.
import type pg from "pg";
import { DAY_MS, utcDay } from "@/server/days";
import { pgPool } from "@/server/db/pg-pool";

/** Day partitions kept ready ahead of today, so a missed upkeep run or two costs nothing. */
export const PARTITION_DAYS_AHEAD = 7;

const NAME = /^beacon_log_(\d{4})(\d{2})(\d{2})$/;
const partitionName = (day: string) => `beacon_log_${day.replaceAll("-", "")}`;

export interface LogPartition {
  name: string;
  /** YYYY-MM-DD, or null for the default partition. */
  day: string | null;
  bytes: number;
}

export async function logPartitions(client?: pg.PoolClient): Promise<LogPartition[]> {
  const { rows } = await (client ?? pgPool()).query<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'beacon_log'::regclass
      ORDER BY c.relname`,
  );
  return rows.map((row) => {
    const match = NAME.exec(row.name);
    return { name: row.name, day: match ? `${match[1]}-${match[2]}-${match[3]}` : null, bytes: Number(row.bytes) };
  });
}

/**
 * Creates the partitions of `from`'s day through PARTITION_DAYS_AHEAD days after it that do not
 * exist yet; returns the days it created. A day whose rows already sit in the default partition
 * is left there (Postgres refuses to create a partition over them); they settle and age out from
 * the default partition like any other row.
 */
export async function createLogPartitions(from: Date): Promise<string[]> {
  const existing = new Set((await logPartitions()).map((p) => p.day));
  const created: string[] = [];
  for (let n = 0; n <= PARTITION_DAYS_AHEAD; n++) {
    const day = utcDay(new Date(from.getTime() + n * DAY_MS));
    if (existing.has(day)) continue;
    const next = utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));
    const client = await pgPool().connect();
    try {
      await client.query("BEGIN");
      // Rows of the day in the default partition would make the CREATE fail; a quick look first.
      const { rows } = await client.query(`SELECT 1 FROM beacon_log_default WHERE received_at >= $1::date AND received_at < $2::date LIMIT 1`, [day, next]);
      if (rows.length === 0) {
        await client.query(`CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF beacon_log FOR VALUES FROM ('${day}') TO ('${next}')`);
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

// A day can go when no row of it is waiting in any shard: no shard holds a row after its cursor
// received that day (a shard's waiting rows are few unless settling is behind).
const WAITING_ON_DAY_SQL = `
SELECT EXISTS (
  SELECT 1 FROM settle_cursors c
   WHERE EXISTS (
     SELECT 1 FROM beacon_log l
      WHERE l.shard = c.shard AND (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
        AND l.received_at >= $1::timestamptz AND l.received_at < $2::timestamptz)) AS waiting`;

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
  dropped: string[];
  /** Settled rows deleted from the default partition. */
  deletedFromDefault: number;
}

/**
 * Drops the day partitions that ended more than `retentionDays` before `now` and hold no event
 * still waiting to be settled, and deletes such rows from the default partition.
 */
export async function dropSettledLogPartitions(now: Date, retentionDays: number): Promise<RetentionResult> {
  const cutoff = Date.parse(`${utcDay(now)}T00:00:00Z`) - retentionDays * DAY_MS;
  const result: RetentionResult = { dropped: [], deletedFromDefault: 0 };
  const partitions = await logPartitions();
  for (const partition of partitions) {
    if (partition.day === null) continue;
    const start = Date.parse(`${partition.day}T00:00:00Z`);
    const end = start + DAY_MS;
    if (end > cutoff) continue;
    const { rows } = await pgPool().query<{ waiting: boolean }>(WAITING_ON_DAY_SQL, [new Date(start), new Date(end)]);
    if (rows[0]!.waiting) continue;
    if (await dropPartition(partition.name)) result.dropped.push(partition.day);
  }
  const { rowCount } = await pgPool().query(
    `DELETE FROM beacon_log_default l USING settle_cursors c
      WHERE l.shard = c.shard AND l.received_at < $1::timestamptz AND (l.accepted_xid, l.seq) <= (c.last_xid, c.last_seq)`,
    [new Date(cutoff)],
  );
  result.deletedFromDefault = rowCount ?? 0;
  return result;
}

export interface UpkeepResult extends RetentionResult {
  created: string[];
}

/** The upkeep job: partitions ahead, then retention. */
export async function logUpkeep(now: Date, retentionDays: number): Promise<UpkeepResult> {
  const created = await createLogPartitions(now);
  return { created, ...(await dropSettledLogPartitions(now, retentionDays)) };
}
