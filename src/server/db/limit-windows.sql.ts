// Hand-written SQL: the shared counts of the rate limits (v1_limit_windows; the daily intake
// ceilings' in intake_ceiling_windows), where every process takes its leases (shared-limiter.ts).
// One statement takes a share of many keys' windows at once.
import type pg from "pg";
import sql, { raw } from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { prepared } from "@/server/db/prepared";
import type { LeaseAsk, LeaseStore } from "./shared-limiter";

// Each key's row of a window holds what all processes have taken of it; a take adds at most what
// is left up to the capacity, and `last_grant` says how much this take got (an UPDATE's SET sees
// the row as it was, so both columns are computed from the old `taken`). Rows are written in key
// order, so two processes taking the same keys lock them in the same order and never deadlock.
const takeSql = (table: LeaseTable, asks: LeaseAsk[]) => sql`
INSERT INTO ${raw(table)} AS w (window_start_ms, key, capacity, taken, last_grant)
SELECT a.window_start_ms, a.key, a.capacity, least(a.want, a.capacity), least(a.want, a.capacity)
  FROM unnest(${asks.map((a) => a.windowStartMs)}::bigint[], ${asks.map((a) => a.key)}::text[], ${asks.map((a) => a.capacity)}::int[], ${asks.map((a) => a.want)}::int[]) AS a(window_start_ms, key, capacity, want)
 ORDER BY a.window_start_ms, a.key
    ON CONFLICT (window_start_ms, key) DO UPDATE
   SET taken = greatest(w.taken, least(w.taken + excluded.taken, excluded.capacity)),
       last_grant = greatest(0, least(w.taken + excluded.taken, excluded.capacity) - w.taken),
       capacity = excluded.capacity
RETURNING window_start_ms::float8 AS window_start_ms, key, last_grant`;

/**
 * The tables of shared counts: one per length of window, since each limiter forgets every window
 * older than its own previous one, which would wipe a longer window kept beside it.
 */
export type LeaseTable = "v1_limit_windows" | "intake_ceiling_windows";

/** The shared limits' counts in Postgres, through `pool` (the request pool unless a test says otherwise). */
export const postgresLeaseStore = (pool: () => pg.Pool = pgPool, table: LeaseTable = "v1_limit_windows"): LeaseStore => ({
  async take(asks: LeaseAsk[]): Promise<number[]> {
    const { rows } = await pool().query<{ window_start_ms: number; key: string; last_grant: number }>(prepared(`${table}-take`, takeSql(table, asks)));
    const granted = new Map(rows.map((row) => [`${row.window_start_ms} ${row.key}`, row.last_grant]));
    return asks.map((a) => granted.get(`${a.windowStartMs} ${a.key}`) ?? 0);
  },

  async forgetBefore(windowStartMs: number): Promise<void> {
    await pool().query(prepared(`${table}-forget`, sql`DELETE FROM ${raw(table)} WHERE window_start_ms < ${windowStartMs}`));
  },
});
