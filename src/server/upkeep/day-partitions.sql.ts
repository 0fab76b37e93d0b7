// The day partitions of Tally's five partitioned tables: the two logs of accepted beacons and
// orders, and the settled ad_events, conversions and attributions. Each day's partition is made
// ahead of time by upkeep; retention drops whole days (the cost of a drop does not grow with what
// the day holds, where deleting rows would cost per row and leave the table to vacuum). A default
// partition per table catches rows of a day upkeep has not made. Table names are fixed lists,
// never input.
import type pg from "pg";
import sql from "sql-template-tag";
import { addDays, DAY_MS, dayStart, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { dayStartLiteral, identifier } from "@/server/db/sql-literals";
import { inTransaction } from "@/server/db/transaction";
import { SET_LOCAL_LOCK_TIMEOUT_2S } from "@/server/db/transaction.sql";

/** Day partitions kept ready ahead of today, so a missed upkeep run or two costs nothing. */
export const PARTITION_DAYS_AHEAD = 7;

/** Each partitioned table and the column whose UTC day picks the partition. */
export const PARTITION_KEYS = {
  beacon_log: "received_at",
  conversion_log: "received_at",
  ad_events: "created_at",
  conversions: "received_at",
  attributions: "conversion_received_at",
} as const;

export type PartitionedTable = keyof typeof PARTITION_KEYS;
export const PARTITIONED_TABLES = Object.keys(PARTITION_KEYS) as PartitionedTable[];

export const partitionName = (table: PartitionedTable, day: string) => `${table}_${day.replaceAll("-", "")}`;

export interface DayPartition {
  table: PartitionedTable;
  name: string;
  /** YYYY-MM-DD, or null for the default partition. */
  day: string | null;
  bytes: number;
}

/** Every partition of `tables` (all five by default), with its size on disk, oldest day first. */
export async function dayPartitions(
  tables: readonly PartitionedTable[] = PARTITIONED_TABLES,
  pool: pg.Pool | pg.PoolClient = pgPool(),
): Promise<DayPartition[]> {
  const { rows } = await pool.query<{ parent: PartitionedTable; name: string; bytes: string }>(
    sql`SELECT p.relname AS parent, c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
         WHERE p.relname = ANY(${tables}::text[])
         ORDER BY p.relname, c.relname`,
  );
  return rows.map((row) => {
    const match = /_(\d{4})(\d{2})(\d{2})$/.exec(row.name);
    return { table: row.parent, name: row.name, day: match ? `${match[1]}-${match[2]}-${match[3]}` : null, bytes: Number(row.bytes) };
  });
}

/**
 * Creates the partitions of `table` for `from`'s day through `daysAhead` days after it that do not
 * exist yet; returns the days it created. A day whose rows already sit in the default partition is
 * left there (Postgres refuses to create a partition over them); they age out from the default
 * partition like any other row. `pool`: another database's (the benchmarks' loaders).
 */
export async function createDayPartitions(
  from: Date,
  table: PartitionedTable,
  { daysAhead = PARTITION_DAYS_AHEAD, pool = pgPool() }: { daysAhead?: number; pool?: pg.Pool } = {},
): Promise<string[]> {
  const existing = new Set((await dayPartitions([table], pool)).map((p) => p.day));
  // Names go into the statements' text (Postgres takes no parameter for a name, nor in DDL): the
  // table and its key come from PARTITION_KEYS, and identifier() and dayStartLiteral() check them.
  const parent = identifier(table);
  const defaultPartition = identifier(`${table}_default`);
  const key = identifier(PARTITION_KEYS[table]);
  const created: string[] = [];
  for (let n = 0; n <= daysAhead; n++) {
    const day = utcDay(from.getTime() + n * DAY_MS);
    if (existing.has(day)) continue;
    const next = addDays(day, 1);
    await inTransaction(
      async (client) => {
        // Every web process and worker runs upkeep: one at a time creates, so two never race on
        // the same new table (IF NOT EXISTS does not make a simultaneous CREATE safe).
        await client.query(sql`SELECT pg_advisory_xact_lock(hashtext('tally log upkeep'))`);
        // Rows of the day in the default partition would make the CREATE fail; a quick look first.
        const { rows: made } = await client.query<{ t: string | null }>(sql`SELECT to_regclass(${partitionName(table, day)})::text AS t`);
        const { rows } = await client.query(
          sql`SELECT 1 FROM ${defaultPartition} WHERE ${key} >= ${dayStart(day)}::timestamptz AND ${key} < ${dayStart(next)}::timestamptz LIMIT 1`,
        );
        if (made[0]!.t === null && rows.length === 0) {
          await client.query(
            sql`CREATE TABLE IF NOT EXISTS ${identifier(partitionName(table, day))} PARTITION OF ${parent} FOR VALUES FROM (${dayStartLiteral(day)}) TO (${dayStartLiteral(next)})`,
          );
          created.push(day);
        }
      },
      { pool },
    );
  }
  return created;
}

/** Every partitioned table's partitions from `now`'s day through PARTITION_DAYS_AHEAD; returns the `<table>_<YYYYMMDD>` names made. */
export async function createPartitionsAhead(now: Date): Promise<string[]> {
  const created: string[] = [];
  for (const table of PARTITIONED_TABLES) created.push(...(await createDayPartitions(now, table)).map((day) => partitionName(table, day)));
  return created;
}

/**
 * Drops one partition. Dropping locks the whole table for an instant; it waits at most 2 s for the
 * statements under way, so accepts and settling never queue behind it for longer, and the next
 * upkeep run tries again (false).
 */
export async function dropPartition(name: string): Promise<boolean> {
  try {
    await inTransaction(async (client) => {
      await client.query(SET_LOCAL_LOCK_TIMEOUT_2S);
      // A partition's name, as dayPartitions read it from the catalogue: checked by identifier(), as DROP takes no parameter.
      await client.query(sql`DROP TABLE IF EXISTS ${identifier(name)}`);
    });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "55P03") return false;
    throw error;
  }
}
