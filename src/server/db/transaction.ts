// One transaction on one pooled connection, for the hand-written SQL that needs several
// statements to commit together (Prisma's $transaction serves the Prisma queries).
import type pg from "pg";
import type { Sql } from "sql-template-tag";
import { pgPool } from "./pg-pool";
import { BEGIN, COMMIT, ROLLBACK } from "./transaction.sql";

/**
 * Runs `work` on a client of `pool` inside `begin` (BEGIN by default; a report opens with
 * beginReadOnly(settings)): COMMIT when it returns, ROLLBACK when it throws, and the work's error,
 * not a failed ROLLBACK's, is what the caller sees. The client goes back to the pool either way.
 */
export async function inTransaction<T>(
  work: (client: pg.PoolClient) => Promise<T>,
  { pool = pgPool(), begin = BEGIN }: { pool?: pg.Pool; begin?: Sql } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query(COMMIT);
    return result;
  } catch (error) {
    await client.query(ROLLBACK).catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
