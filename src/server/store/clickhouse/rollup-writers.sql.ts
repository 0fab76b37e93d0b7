// Hand-written SQL: one Postgres advisory lock between what adds rows to ClickHouse's report
// rollups (the shipper and the backfill, whose inserts feed the materialized views) and a rollup
// rebuild, which recounts months of rollups from the raw rows and swaps them in: a row inserted
// between the recount and the swap would be lost, one inserted before the recount but after the
// old rollups were read would count twice. Writers share the lock, a rebuild takes it alone (as
// does a migration adding to the rollups what they lack: migrate.sql.ts). Each holder keeps a
// connection of its own for the lock's life: if the process dies, the lock goes with its
// connection. The backfill also holds a lock of its own, so only one runs at a time.
import type pg from "pg";
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { BEGIN, COMMIT, setLocalStatementTimeout } from "@/server/db/transaction.sql";

const LOCK = "tally-clickhouse-rollup-writers";

async function holding<T>(take: (client: pg.PoolClient) => Promise<boolean>, work: () => Promise<T>): Promise<{ value: T } | null> {
  const client = await pgPool().connect();
  let outcome: { value: T } | null;
  try {
    if (!(await take(client))) {
      client.release();
      return null;
    }
    outcome = { value: await work() };
  } catch (error) {
    // Closing the connection ends whatever it was in the middle of, and lets go of the lock.
    client.release(error instanceof Error ? error : true);
    throw error;
  }
  await client.query(sql`SELECT pg_advisory_unlock_all()`).finally(() => client.release());
  return outcome;
}

/** `work` as one of the rollups' writers; "rebuilding" (and `work` not run) while a rebuild holds the rollups. */
export async function asRollupWriter<T>(work: () => Promise<T>): Promise<T | "rebuilding"> {
  const held = await holding(async (client) => {
    const { rows } = await client.query<{ locked: boolean }>(sql`SELECT pg_try_advisory_lock_shared(hashtextextended(${LOCK}, 0)) AS locked`);
    return rows[0]!.locked;
  }, work);
  return held ? held.value : "rebuilding";
}

/** `work` with no writer adding to the rollups: waits for those at work to finish, and new ones wait for it. */
export async function asRollupRebuilder<T>(work: () => Promise<T>): Promise<T> {
  const held = await holding(async (client) => {
    // The wait lasts as long as a shipper's run, past the pool's statement limit: lifted for this
    // one statement (a session lock outlives the transaction that took it).
    await client.query(BEGIN);
    await client.query(setLocalStatementTimeout(0));
    await client.query(sql`SELECT pg_advisory_lock(hashtextextended(${LOCK}, 0))`);
    await client.query(COMMIT);
    return true;
  }, work);
  return held!.value;
}

const BACKFILL_LOCK = "tally-clickhouse-backfill";

/**
 * `work` as the only backfill at work (the lock is Postgres's, so processes on other machines
 * count too); "busy" (and `work` not run) while another holds it. Two backfills at once would each
 * decide from what ClickHouse held when it began, and could send the same rows in chunks the
 * deduplication tokens do not match up.
 */
export async function asOnlyBackfill<T>(work: () => Promise<T>): Promise<T | "busy"> {
  const held = await holding(async (client) => {
    const { rows } = await client.query<{ locked: boolean }>(sql`SELECT pg_try_advisory_lock(hashtextextended(${BACKFILL_LOCK}, 0)) AS locked`);
    return rows[0]!.locked;
  }, work);
  return held ? held.value : "busy";
}
