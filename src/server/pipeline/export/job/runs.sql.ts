// The export's books: `export_runs` (each batch's range, planned row count and object keys, stored
// before anything is uploaded, then its outcome), `export_watermarks` (how far each destination
// and type has been delivered) and the advisory lock that keeps two workers (cron calls, the dev
// timer, the CLI) off the same destination and type. Hand-written SQL: the watermark moves only
// if it is still where the batch started (compare and set), in the transaction that marks the
// run delivered; an aggregate watermark is a local midnight with its zone, and moves only if the
// date beginning there is the run's day. Small queries, on the request pool; the batch's reads are on the bulk pool
// (batch-rows.ts).
import type pg from "pg";
import sql, { type Sql } from "sql-template-tag";
import type { ExportType } from "@/server/db/generated/enums";
import { newId } from "@/server/db/ids";
import { pgPool } from "@/server/db/pg-pool";
import { inTransaction } from "@/server/db/transaction";
import type { SetAsideRow } from "./poison";
import type { AggregateWatermark, TimeRange } from "./schedule";

export interface RunRow {
  id: string;
  destination_id: string;
  type: ExportType;
  status: "running" | "succeeded" | "failed";
  range_start: Date;
  range_end: Date;
  /** An aggregate run's zone: its range is a local day of it. Null for events (and UTC for aggregate runs from before zones). */
  time_zone: string | null;
  keys: string[];
  planned_rows: bigint | number;
  stale_keys: string[] | null;
  set_aside_rows: number;
  set_aside: SetAsideRow[];
  attempt: number;
  backfill: boolean;
  next_attempt_at: Date | null;
}

/** The active destinations (or the one asked for, if active) with their types, oldest first. */
export async function activeDestinations(destinationId: string | null): Promise<{ id: string; types: ExportType[] }[]> {
  const { rows } = await pgPool().query<{ id: string; types: ExportType[] }>(
    sql`SELECT id, types::text[] AS types FROM export_destinations WHERE status = 'active' AND (${destinationId}::text IS NULL OR id = ${destinationId})
         ORDER BY created_at, id`,
  );
  return rows;
}

/** A destination that is not disabled, once per type it exports. */
export interface DestinationPosition {
  destinationId: string;
  name: string;
  accountId: string;
  status: "active" | "needs_attention";
  type: ExportType;
  createdAt: Date;
  /** How far the type has been delivered; null before its first scheduled batch. */
  watermark: Date | null;
}

/** Every destination that is not disabled, each type with its watermark, by name and type: for the lags and for retention. */
export async function destinationPositions(): Promise<DestinationPosition[]> {
  const { rows } = await pgPool().query<{
    id: string;
    name: string;
    account_id: string;
    status: DestinationPosition["status"];
    type: ExportType;
    created_at: Date;
    delivered_to: Date | null;
  }>(
    sql`SELECT d.id, d.name, d.account_id, d.status::text AS status, t.type::text AS type, d.created_at, w.delivered_to
       FROM export_destinations d
      CROSS JOIN LATERAL unnest(d.types) AS t(type)
       LEFT JOIN export_watermarks w ON w.destination_id = d.id AND w.type = t.type
      WHERE d.status <> 'disabled'
      ORDER BY d.name, t.type`,
  );
  return rows.map((row) => ({
    destinationId: row.id,
    name: row.name,
    accountId: row.account_id,
    status: row.status,
    type: row.type,
    createdAt: row.created_at,
    watermark: row.delivered_to,
  }));
}

/** How far a destination's type has been delivered, and the zone that moment is a local midnight of (aggregates); null before its first scheduled batch. */
export async function watermarkOf(destinationId: string, type: ExportType): Promise<AggregateWatermark | null> {
  const { rows } = await pgPool().query<{ delivered_to: Date; time_zone: string }>(
    sql`SELECT delivered_to, time_zone FROM export_watermarks WHERE destination_id = ${destinationId} AND type = ${type}::"ExportType"`,
  );
  return rows[0] ? { at: rows[0].delivered_to, zone: rows[0].time_zone } : null;
}

/** The oldest scheduled run of a destination's type that has not succeeded (failed, or left running by a worker that died). */
export async function unfinishedRun(destinationId: string, type: ExportType): Promise<RunRow | null> {
  const { rows } = await pgPool().query<RunRow>(
    sql`SELECT * FROM export_runs WHERE destination_id = ${destinationId} AND type = ${type}::"ExportType" AND NOT backfill AND status <> 'succeeded'
         ORDER BY started_at ASC LIMIT 1`,
  );
  return rows[0] ?? null;
}

/** Another attempt at a run: running again, its last error and retry time cleared. */
export async function resumeRun(runId: string): Promise<RunRow> {
  const { rows } = await pgPool().query<RunRow>(
    sql`UPDATE export_runs SET status = 'running', attempt = attempt + 1, started_at = now(), finished_at = NULL, error = NULL, next_attempt_at = NULL
         WHERE id = ${runId} RETURNING *`,
  );
  return rows[0]!;
}

export interface PlannedRun {
  destinationId: string;
  type: ExportType;
  range: TimeRange;
  /** An aggregate run's zone (its range is a local day of it); null for events. */
  zone: string | null;
  keys: string[];
  rows: number;
  backfill: boolean;
  startedAt: Date;
}

export async function insertRun(plan: PlannedRun): Promise<RunRow> {
  const { rows } = await pgPool().query<RunRow>(
    sql`INSERT INTO export_runs (id, destination_id, type, status, range_start, range_end, time_zone, keys, planned_rows, backfill, started_at)
        VALUES (${newId("exr")}, ${plan.destinationId}, ${plan.type}::"ExportType", 'running', ${plan.range.start}, ${plan.range.end}, ${plan.zone},
                ${plan.keys}, ${plan.rows}, ${plan.backfill}, ${plan.startedAt})
        RETURNING *`,
  );
  return rows[0]!;
}

/** New keys for `rows` rows; the old keys kept as stale until a delivery has deleted them and succeeded. */
export async function replanRun(runId: string, keys: string[], rows: number): Promise<RunRow> {
  const { rows: updated } = await pgPool().query<RunRow>(
    sql`UPDATE export_runs SET keys = ${keys}, planned_rows = ${rows}, stale_keys = coalesce(stale_keys, '{}') || coalesce(keys, '{}')
         WHERE id = ${runId} RETURNING *`,
  );
  return updated[0]!;
}

export async function recordSetAside(runId: string, found: SetAsideRow[]): Promise<RunRow> {
  const { rows: updated } = await pgPool().query<RunRow>(
    sql`UPDATE export_runs SET set_aside = set_aside || ${JSON.stringify(found)}::jsonb, set_aside_rows = set_aside_rows + ${found.reduce((sum, row) => sum + row.rows, 0)}
         WHERE id = ${runId} RETURNING *`,
  );
  return updated[0]!;
}

/**
 * The compare of the compare and set: an event watermark must be at the run's start; an aggregate
 * watermark (a local midnight in its zone) must begin the run's day, which is the run's start
 * unless the account's zone changed since the last day delivered.
 */
function watermarkAtStart(run: RunRow): Sql {
  if (run.time_zone === null) return sql`w.delivered_to = ${run.range_start}`;
  return sql`(w.delivered_to AT TIME ZONE w.time_zone)::date = (${run.range_start}::timestamptz AT TIME ZONE ${run.time_zone})::date`;
}

/** Marks a run delivered and, unless it was a backfill, moves the watermark from its start (or its day) to its end, in one transaction. */
export async function finishRun(run: RunRow, result: { rows: number; files: number; bytes: number }, durationMs: number): Promise<void> {
  return inTransaction(async (client) => {
    await client.query(
      sql`UPDATE export_runs SET status = 'succeeded', rows = ${result.rows}, files = ${result.files}, bytes = ${result.bytes}, finished_at = now(),
                 duration_ms = ${durationMs}, error = NULL, next_attempt_at = NULL, stale_keys = NULL
           WHERE id = ${run.id}`,
    );
    if (!run.backfill) {
      // Compare and set: the watermark moves from this batch's start to its end, or not at all.
      const moved = await client.query(
        sql`INSERT INTO export_watermarks AS w (destination_id, type, delivered_to, time_zone, updated_at)
            VALUES (${run.destination_id}, ${run.type}::"ExportType", ${run.range_end}, ${run.time_zone ?? "UTC"}, now())
            ON CONFLICT (destination_id, type) DO UPDATE SET delivered_to = EXCLUDED.delivered_to, time_zone = EXCLUDED.time_zone, updated_at = now()
             WHERE ${watermarkAtStart(run)}`,
      );
      if (moved.rowCount !== 1) throw new Error(`the watermark of ${run.destination_id}/${run.type} is no longer at ${run.range_start.toISOString()}`);
    }
  });
}

export async function failRun(runId: string, message: string, durationMs: number, nextAttemptAt: Date | null): Promise<void> {
  await pgPool().query(
    sql`UPDATE export_runs SET status = 'failed', error = ${message}, finished_at = now(), duration_ms = ${durationMs}, next_attempt_at = ${nextAttemptAt}
         WHERE id = ${runId}`,
  );
}

/**
 * `work` under a session-level advisory lock per destination and type, on a connection held for
 * the batch: if the process dies, the connection closes and the lock goes with it. "locked" when
 * another worker holds it.
 */
export async function withLock<T>(destinationId: string, type: ExportType, work: () => Promise<T>): Promise<T | "locked"> {
  const client: pg.PoolClient = await pgPool().connect();
  const lock = `tally-export:${destinationId}:${type}`;
  try {
    const { rows } = await client.query<{ locked: boolean }>(sql`SELECT pg_try_advisory_lock(hashtextextended(${lock}, 0)) AS locked`);
    if (!rows[0]!.locked) return "locked";
    try {
      return await work();
    } finally {
      await client.query(sql`SELECT pg_advisory_unlock(hashtextextended(${lock}, 0))`);
    }
  } finally {
    client.release();
  }
}
