// The export schedule (decisions §6): events hourly, every row received since the destination's
// watermark; aggregates daily after 03:00 UTC, for the previous UTC day. Each (destination, type)
// moves batch by batch:
//   1. plan: the range after the watermark and, from its row count, the object keys, stored in an
//      export_runs row before anything is uploaded;
//   2. deliver: every file under those keys, then `_SUCCESS`;
//   3. commit: the run marked delivered and the watermark moved, in one transaction.
// A run that failed, or whose worker died half-way, is retried with the same range and keys, so a
// consumer sees each row once whatever happened. A batch is capped in rows as well as in time
// (MAX_ROWS_PER_BATCH). A batch whose rows no longer number what its keys were planned for (rows
// committed late into its range, a set-aside row, another rows-per-file) is planned again: same
// range, new keys, the old keys deleted before the new files go up. A batch that fails on a row's
// data sets that row aside (poison.ts) and delivers the rest. Hand-written SQL: the watermark moves
// only if it is still where the batch started (compare and set), and a Postgres advisory lock
// keeps two workers (cron calls, the dev timer, the CLI) off the same destination and type. The
// bookkeeping here is small queries on the request pool; the batch's reads are on the bulk pool
// (batch-rows.ts).
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { ExportType } from "@/server/db/generated/enums";
import { newId } from "@/server/db/ids";
import { pgPool } from "@/server/db/pg-pool";
import { TallyError } from "@/server/errors";
import { batchRows, cappedEnd, countRows } from "./batch-rows";
import { deliverBatch, extensionOf, type FileDelivered, filesFor, ROWS_PER_FILE, scopeOfAccount } from "./deliver-batch";
import { type DestinationWithSecret, destinationWithSecret, markNeedsAttention } from "./destinations";
import { EXPORT_TYPES, isEventType } from "./layouts";
import { isolateBadRows, isRowDataError, type SetAsideRow } from "./poison";
import { describeS3Error } from "./s3";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Rows younger than this may still be in open transactions: a batch ends this far before now. */
export const SETTLE_MS = 5 * 60_000;
/** An event batch waits until it spans an hour, and spans a day at most. */
const EVENT_BATCH_MIN_MS = HOUR_MS;
const EVENT_BATCH_MAX_MS = DAY_MS;
/** Aggregates of a day are delivered from 03:00 UTC the next day. */
const AGGREGATE_DELAY_MS = 3 * HOUR_MS;
/** Back-off after a failure: 1, 2, 4, ... minutes, at most an hour. */
const backoffMs = (attempt: number) => Math.min(HOUR_MS, 60_000 * 2 ** Math.max(0, attempt - 1));
/**
 * Events in one batch at most: five files of ROWS_PER_FILE. A batch is read, written and uploaded
 * in one go, so this bounds how long one takes (and what a retry repeats) after an outage or on a
 * busy day; the rest of the range goes in the next batch.
 */
export const MAX_ROWS_PER_BATCH = 5_000_000;
/** Plans of one batch in one call: rows that keep changing under it wait for the next call. */
const MAX_PLANS_PER_CALL = 5;

export interface ExportRunSummary {
  runId: string;
  destinationId: string;
  type: ExportType;
  rangeStart: string;
  rangeEnd: string;
  status: "succeeded" | "failed";
  attempt: number;
  rows: number;
  files: number;
  bytes: number;
  durationMs: number;
  error: string | null;
  /** Rows left out because no attempt could read or encode them, with their ids and reasons. */
  setAsideRows: number;
  setAside: SetAsideRow[];
}

export interface RunExportsOptions {
  now?: () => Date;
  /** Stop starting batches when less than this is left (ms); the next call resumes. */
  budgetMs?: number;
  destinationId?: string;
  types?: ExportType[];
  rowsPerFile?: number;
  /** MAX_ROWS_PER_BATCH unless given. */
  maxRowsPerBatch?: number;
  /** TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS unless given (endpoint-guard.ts). */
  allowPrivateEndpoints?: boolean;
  /**
   * "Run now" from the dashboard: events up to 5 minutes ago however short the span, and any
   * complete day's aggregates without waiting for 03:00.
   */
  eager?: boolean;
  onFile?: (file: FileDelivered) => void | Promise<void>;
  onRun?: (run: ExportRunSummary) => void;
}

interface RunRow {
  id: string;
  destination_id: string;
  type: ExportType;
  status: "running" | "succeeded" | "failed";
  range_start: Date;
  range_end: Date;
  keys: string[];
  planned_rows: bigint | number;
  stale_keys: string[] | null;
  set_aside_rows: number;
  set_aside: SetAsideRow[];
  attempt: number;
  backfill: boolean;
  next_attempt_at: Date | null;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** TYPE/YYYY/MM/DD/TIMESTAMP_NS/<random>.ext under the prefix, dated by the run's start (UTC). */
export function planKeys(prefix: string, type: ExportType, startedAt: Date, files: number): string[] {
  const folder = `${prefix}${type}/${startedAt.getUTCFullYear()}/${pad(startedAt.getUTCMonth() + 1)}/${pad(startedAt.getUTCDate())}/${BigInt(startedAt.getTime()) * 1_000_000n}/`;
  return Array.from({ length: files }, () => `${folder}${randomBytes(12).toString("hex")}${extensionOf(type)}`);
}

async function initialWatermark(destination: DestinationWithSecret, type: ExportType): Promise<Date> {
  // Events from the start of the day the destination was created; aggregates from the day before.
  const day = Date.UTC(destination.createdAt.getUTCFullYear(), destination.createdAt.getUTCMonth(), destination.createdAt.getUTCDate());
  return new Date(isEventType(type) ? day : day - DAY_MS);
}

/** The next scheduled range after the watermark, or null when nothing is due yet. */
async function nextRange(destination: DestinationWithSecret, type: ExportType, now: Date, eager: boolean): Promise<{ start: Date; end: Date } | null> {
  const { rows } = await pgPool().query<{ delivered_to: Date }>(
    'SELECT delivered_to FROM export_watermarks WHERE destination_id = $1 AND type = $2::"ExportType"',
    [destination.id, type],
  );
  const start = rows[0]?.delivered_to ?? (await initialWatermark(destination, type));
  if (isEventType(type)) {
    const settled = now.getTime() - SETTLE_MS;
    if (settled - start.getTime() < (eager ? 1 : EVENT_BATCH_MIN_MS)) return null;
    return { start, end: new Date(Math.min(settled, start.getTime() + EVENT_BATCH_MAX_MS)) };
  }
  const end = new Date(start.getTime() + DAY_MS);
  return now.getTime() >= end.getTime() + (eager ? 0 : AGGREGATE_DELAY_MS) ? { start, end } : null;
}

interface PlanOptions {
  rowsPerFile: number;
  maxRowsPerBatch: number;
}

/** Plans a batch over `range`, which ends early when it would hold more than the cap. */
async function createRun(
  destination: DestinationWithSecret,
  type: ExportType,
  range: { start: Date; end: Date },
  backfill: boolean,
  plan: PlanOptions,
): Promise<RunRow> {
  const scope = await scopeOfAccount(destination.accountId);
  let end = range.end;
  let rows = await countRows(batchRows(type, scope, { rangeStart: range.start, rangeEnd: end }));
  // Only a batch over the cap pays for finding where to end it (a sort of its rows' times).
  if (isEventType(type) && rows > plan.maxRowsPerBatch) {
    end = await cappedEnd(type, scope, range, plan.maxRowsPerBatch);
    rows = await countRows(batchRows(type, scope, { rangeStart: range.start, rangeEnd: end }));
  }
  const startedAt = new Date();
  const keys = planKeys(destination.prefix, type, startedAt, filesFor(type, rows, plan.rowsPerFile));
  const { rows: created } = await pgPool().query<RunRow>(
    `INSERT INTO export_runs (id, destination_id, type, status, range_start, range_end, keys, planned_rows, backfill, started_at)
     VALUES ($1, $2, $3::"ExportType", 'running', $4, $5, $6, $7, $8, $9) RETURNING *`,
    [newId("exr"), destination.id, type, range.start, end, keys, rows, backfill, startedAt],
  );
  return created[0]!;
}

/**
 * The same range planned again for `rows` rows: new keys in a new folder (dated now), the old
 * keys kept as stale until a delivery has deleted them and succeeded.
 */
async function replanRun(destination: DestinationWithSecret, run: RunRow, rows: number, rowsPerFile: number): Promise<RunRow> {
  const keys = planKeys(destination.prefix, run.type, new Date(), filesFor(run.type, rows, rowsPerFile));
  const { rows: updated } = await pgPool().query<RunRow>(
    `UPDATE export_runs SET keys = $2, planned_rows = $3, stale_keys = coalesce(stale_keys, '{}') || coalesce(keys, '{}') WHERE id = $1 RETURNING *`,
    [run.id, keys, rows],
  );
  return updated[0]!;
}

async function recordSetAside(run: RunRow, found: SetAsideRow[]): Promise<RunRow> {
  const { rows: updated } = await pgPool().query<RunRow>(
    `UPDATE export_runs SET set_aside = set_aside || $2::jsonb, set_aside_rows = set_aside_rows + $3 WHERE id = $1 RETURNING *`,
    [run.id, JSON.stringify(found), found.reduce((sum, row) => sum + row.rows, 0)],
  );
  return updated[0]!;
}

/**
 * The run to work on next for a destination and type: an unfinished scheduled run (failed and due
 * again, or left running by a worker that died: we hold the lock, so nobody else runs it), else a
 * new run for the next range, else null.
 */
async function nextRun(
  destination: DestinationWithSecret,
  type: ExportType,
  now: Date,
  plan: PlanOptions,
  eager: boolean,
): Promise<{ run: RunRow; fresh: boolean } | null> {
  const { rows } = await pgPool().query<RunRow>(
    `SELECT * FROM export_runs WHERE destination_id = $1 AND type = $2::"ExportType" AND NOT backfill AND status <> 'succeeded'
      ORDER BY started_at ASC LIMIT 1`,
    [destination.id, type],
  );
  const unfinished = rows[0];
  if (unfinished) {
    if (unfinished.status === "failed" && unfinished.next_attempt_at && unfinished.next_attempt_at > now) return null;
    const { rows: resumed } = await pgPool().query<RunRow>(
      `UPDATE export_runs SET status = 'running', attempt = attempt + 1, started_at = now(), finished_at = NULL, error = NULL, next_attempt_at = NULL
        WHERE id = $1 RETURNING *`,
      [unfinished.id],
    );
    return { run: resumed[0]!, fresh: false };
  }
  const range = await nextRange(destination, type, now, eager);
  return range ? { run: await createRun(destination, type, range, false, plan), fresh: true } : null;
}

async function finishRun(run: RunRow, result: { rows: number; files: number; bytes: number }, durationMs: number): Promise<void> {
  const client = await pgPool().connect();
  try {
    await client.query("BEGIN");
    await client.query(
      `UPDATE export_runs SET status = 'succeeded', rows = $2, files = $3, bytes = $4, finished_at = now(), duration_ms = $5, error = NULL, next_attempt_at = NULL,
              stale_keys = NULL
        WHERE id = $1`,
      [run.id, result.rows, result.files, result.bytes, durationMs],
    );
    if (!run.backfill) {
      // Compare and set: the watermark moves from this batch's start to its end, or not at all.
      const moved = await client.query(
        `INSERT INTO export_watermarks AS w (destination_id, type, delivered_to, updated_at) VALUES ($1, $2::"ExportType", $4, now())
         ON CONFLICT (destination_id, type) DO UPDATE SET delivered_to = EXCLUDED.delivered_to, updated_at = now() WHERE w.delivered_to = $3`,
        [run.destination_id, run.type, run.range_start, run.range_end],
      );
      if (moved.rowCount !== 1) throw new Error(`the watermark of ${run.destination_id}/${run.type} is no longer at ${run.range_start.toISOString()}`);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function failRun(run: RunRow, message: string, needsAttention: boolean, durationMs: number, now: Date): Promise<void> {
  // A problem that needs a person is not retried on a timer: the destination waits for an update.
  const nextAttemptAt = needsAttention || run.backfill ? null : new Date(now.getTime() + backoffMs(run.attempt));
  await pgPool().query(`UPDATE export_runs SET status = 'failed', error = $2, finished_at = now(), duration_ms = $3, next_attempt_at = $4 WHERE id = $1`, [
    run.id,
    message,
    durationMs,
    nextAttemptAt,
  ]);
  if (needsAttention) await markNeedsAttention(run.destination_id, message);
}

/**
 * Delivers one run and records how it ended. `fresh`: planned by this call just now, so its row
 * count needs no second look before the first try.
 */
async function executeRun(
  destination: DestinationWithSecret,
  planned: RunRow,
  fresh: boolean,
  options: RunExportsOptions,
  now: Date,
): Promise<ExportRunSummary> {
  const started = Date.now();
  const rowsPerFile = options.rowsPerFile ?? ROWS_PER_FILE;
  let run = planned;
  const summary = (status: "succeeded" | "failed", result: { rows: number; files: number; bytes: number }, error: string | null): ExportRunSummary => ({
    runId: run.id,
    destinationId: destination.id,
    type: run.type,
    rangeStart: run.range_start.toISOString(),
    rangeEnd: run.range_end.toISOString(),
    status,
    attempt: run.attempt,
    ...result,
    durationMs: Date.now() - started,
    error,
    setAsideRows: run.set_aside_rows,
    setAside: run.set_aside,
  });
  try {
    const scope = await scopeOfAccount(destination.accountId);
    let checkRows = !fresh;
    for (let plans = 0; ; plans += 1) {
      if (plans === MAX_PLANS_PER_CALL) throw new TallyError("internal", "the batch's rows kept changing while it was delivered; it is tried again later");
      const exclude = run.set_aside.map((row) => row.id);
      // The planned files must still match: the rows now (set-aside ones left out), and the rows per file.
      const rows = checkRows
        ? await countRows(batchRows(run.type, scope, { rangeStart: run.range_start, rangeEnd: run.range_end }), { exclude })
        : Number(run.planned_rows);
      if (rows !== Number(run.planned_rows) || run.keys.length !== filesFor(run.type, rows, rowsPerFile))
        run = await replanRun(destination, run, rows, rowsPerFile);
      checkRows = true;
      let delivery: Awaited<ReturnType<typeof deliverBatch>>;
      try {
        delivery = await deliverBatch(
          destination,
          {
            id: run.id,
            type: run.type,
            rangeStart: run.range_start,
            rangeEnd: run.range_end,
            keys: run.keys,
            plannedRows: Number(run.planned_rows),
            exclude,
            staleKeys: run.stale_keys ?? [],
          },
          { rowsPerFile, onFile: options.onFile, allowPrivateEndpoints: options.allowPrivateEndpoints },
        );
      } catch (error) {
        if (!isRowDataError(error)) throw error;
        const found = await isolateBadRows(batchRows(run.type, scope, { rangeStart: run.range_start, rangeEnd: run.range_end }), exclude);
        if (found.length === 0) throw error; // it did not fail again row by row: a failure like any other
        run = await recordSetAside(run, found);
        continue; // fewer rows now: planned again, and delivered without them
      }
      if (delivery.status === "changed") continue;
      const result = { rows: delivery.rows, files: delivery.files, bytes: delivery.bytes };
      await finishRun(run, result, Date.now() - started);
      return summary("succeeded", result, null);
    }
  } catch (error) {
    const problem = describeS3Error(error, destination);
    await failRun(run, problem.message, problem.needsAttention, Date.now() - started, now);
    return summary("failed", { rows: 0, files: 0, bytes: 0 }, problem.message);
  }
}

// A session-level advisory lock per destination and type, on a connection held for the batch: if
// the process dies, the connection closes and the lock goes with it.
async function withLock<T>(destinationId: string, type: ExportType, work: () => Promise<T>): Promise<T | "locked"> {
  const client: pg.PoolClient = await pgPool().connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked", [
      `tally-export:${destinationId}:${type}`,
    ]);
    if (!rows[0]!.locked) return "locked";
    try {
      return await work();
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`tally-export:${destinationId}:${type}`]);
    }
  } finally {
    client.release();
  }
}

/**
 * Delivers every due batch, whole, until the budget is nearly spent. Returns the runs it did and
 * whether due work is left for the next call.
 */
export async function runDueExports(options: RunExportsOptions = {}): Promise<{ runs: ExportRunSummary[]; unfinished: boolean }> {
  // One "now" for the whole call: it delivers what was due when it started, so a call ends even
  // when batches keep arriving (and an eager call does not chase its own tail).
  const now = (options.now ?? (() => new Date()))();
  const began = Date.now();
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  const plan = planOptions(options);
  const { rows: destinations } = await pgPool().query<{ id: string; types: ExportType[] }>(
    `SELECT id, types::text[] AS types FROM export_destinations WHERE status = 'active' AND ($1::text IS NULL OR id = $1) ORDER BY created_at, id`,
    [options.destinationId ?? null],
  );
  const runs: ExportRunSummary[] = [];
  let longest = 0;
  let unfinished = false;
  for (const row of destinations) {
    const types = EXPORT_TYPES.filter((type) => row.types.includes(type) && (!options.types || options.types.includes(type)));
    for (const type of types) {
      for (;;) {
        // Start a batch only if one as long as the longest so far (and 30 s more) still fits.
        if (Date.now() - began + Math.max(30_000, longest * 1.5) > budget) {
          unfinished = true;
          break;
        }
        const destination = await destinationWithSecret(row.id);
        if (destination?.status !== "active") break;
        const outcome = await withLock(row.id, type, async () => {
          const next = await nextRun(destination, type, now, plan, options.eager ?? false);
          return next ? executeRun(destination, next.run, next.fresh, options, now) : null;
        });
        if (outcome === "locked" || outcome === null) break;
        runs.push(outcome);
        options.onRun?.(outcome);
        longest = Math.max(longest, outcome.durationMs);
        if (outcome.status === "failed") break;
      }
    }
  }
  return { runs, unfinished };
}

const planOptions = (options: RunExportsOptions): PlanOptions => ({
  rowsPerFile: options.rowsPerFile ?? ROWS_PER_FILE,
  maxRowsPerBatch: options.maxRowsPerBatch ?? MAX_ROWS_PER_BATCH,
});

/**
 * Delivers a range by hand (npm run export -- --from --to): per UTC day, each type's rows of that
 * day (events in as many capped batches as the day needs), as runs marked backfill that leave the
 * watermark where it is.
 */
export async function backfillExports(options: RunExportsOptions & { destinationId: string; fromDay: string; toDay: string }): Promise<ExportRunSummary[]> {
  const destination = await destinationWithSecret(options.destinationId);
  if (!destination) throw new Error(`no export destination ${options.destinationId}`);
  const runs: ExportRunSummary[] = [];
  const types = EXPORT_TYPES.filter((type) => destination.types.includes(type) && (!options.types || options.types.includes(type)));
  const plan = planOptions(options);
  for (let day = Date.parse(`${options.fromDay}T00:00:00Z`); day <= Date.parse(`${options.toDay}T00:00:00Z`); day += DAY_MS) {
    for (const type of types) {
      for (let start = day; start < day + DAY_MS; ) {
        const range = { start: new Date(start), end: new Date(day + DAY_MS) };
        const outcome = await withLock(destination.id, type, async () => {
          const run = await createRun(destination, type, range, true, plan);
          return executeRun(destination, run, true, options, new Date());
        });
        if (outcome === "locked") throw new Error(`another export of ${destination.id}/${type} is running; try again when it ends`);
        runs.push(outcome);
        options.onRun?.(outcome);
        start = Date.parse(outcome.rangeEnd);
      }
    }
  }
  return runs;
}
