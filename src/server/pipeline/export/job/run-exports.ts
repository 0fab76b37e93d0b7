// The export job (docs/interface-decisions.md §6): for each active destination and type, batch after batch, under
// the advisory lock of that destination and type:
//   1. plan: the next range due after the watermark (schedule.ts) and, from its row count, the
//      object keys, stored in an export_runs row before anything is uploaded (deliver-run.ts);
//   2. deliver: every file under those keys, then `_SUCCESS` (deliver-batch.ts), the batch planned
//      again when its rows changed and bad rows set aside;
//   3. commit: the run marked delivered and the watermark moved, compare and set, in one
//      transaction (runs.sql.ts).
// A run that failed, or whose worker died half-way, is retried with the same range and keys, so a
// consumer sees each row once whatever happened. Whose rows a run reads (the account's scope) is
// looked up once per run. The four parts: the schedule (pure), the books (runs.sql.ts), the
// sources (layouts.ts, batch-rows.ts) and delivery (deliver-run.ts, deliver-batch.ts, s3.ts).

import { type Actor, assertMayChange } from "@/server/accounts/actor";
import { addDays, dayStart } from "@/server/core/days";
import { EXPORT_TYPES, type ExportTypeName, isEventType } from "@/server/core/export-types";
import type { ExportType } from "@/server/db/generated/enums";
import { type DestinationWithSecret, destinationWithSecret, getDestination, markNeedsAttention } from "@/server/pipeline/export/destinations/destinations";
import { describeS3Error } from "@/server/pipeline/export/destinations/s3";
import { scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { SETTLE_HORIZON_MARGIN_MS, settledBefore } from "@/server/pipeline/settle/settled-horizon";
import { store } from "@/server/store";
import type { ReportScope } from "@/server/store/report-query";
import type { FileDelivered } from "./deliver-batch";
import { dayOfRun, deliverRun, type PlanOptions, planRun, type RunDelivery, zoneOfRun } from "./deliver-run";
import type { SetAsideRow } from "./poison";
import { activeDestinations, failRun, finishRun, type RunRow, resumeRun, unfinishedRun, watermarkOf, withLock } from "./runs.sql";
import {
  aggregateDay,
  backfillDays,
  initialWatermark,
  isResumable,
  MAX_ROWS_PER_BATCH,
  nextAggregateDay,
  nextRange,
  ROWS_PER_FILE,
  retryAt,
  startsInBudget,
  type TimeRange,
} from "./schedule";

export interface ExportRunSummary {
  runId: string;
  destinationId: string;
  type: ExportType;
  rangeStart: string;
  rangeEnd: string;
  /** An aggregate run's local date and its zone (the range is that day's span); null for events. */
  day: string | null;
  timeZone: string | null;
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

const planOptions = (options: RunExportsOptions): PlanOptions => ({
  rowsPerFile: options.rowsPerFile ?? ROWS_PER_FILE,
  maxRowsPerBatch: options.maxRowsPerBatch ?? MAX_ROWS_PER_BATCH,
});

/**
 * Delivers one run and records how it ended: delivered (and the watermark moved), or failed with
 * its retry time (none when the error waits for a person, who is told through the destination's
 * status). `scope` is asked for once; failing to find it fails the run like any other error.
 */
async function executeRun(
  destination: DestinationWithSecret,
  scope: () => Promise<ReportScope>,
  planned: RunRow,
  fresh: boolean,
  options: RunExportsOptions,
  now: Date,
): Promise<ExportRunSummary> {
  const started = Date.now();
  let outcome: RunDelivery;
  try {
    outcome = await deliverRun(destination, await scope(), planned, fresh, {
      rowsPerFile: options.rowsPerFile ?? ROWS_PER_FILE,
      onFile: options.onFile,
      allowPrivateEndpoints: options.allowPrivateEndpoints,
    });
  } catch (error) {
    outcome = { run: planned, status: "failed", error };
  }
  const { run } = outcome;
  const summary = (status: "succeeded" | "failed", result: { rows: number; files: number; bytes: number }, error: string | null): ExportRunSummary => ({
    runId: run.id,
    destinationId: destination.id,
    type: run.type,
    rangeStart: run.range_start.toISOString(),
    rangeEnd: run.range_end.toISOString(),
    day: dayOfRun(run),
    timeZone: zoneOfRun(run),
    status,
    attempt: run.attempt,
    ...result,
    durationMs: Date.now() - started,
    error,
    setAsideRows: run.set_aside_rows,
    setAside: run.set_aside,
  });
  let failure: unknown = outcome.status === "failed" ? outcome.error : null;
  if (outcome.status === "delivered") {
    const result = { rows: outcome.rows, files: outcome.files, bytes: outcome.bytes };
    try {
      await finishRun(run, result, Date.now() - started);
      return summary("succeeded", result, null);
    } catch (error) {
      failure = error;
    }
  }
  const problem = describeS3Error(failure, destination);
  await failRun(run.id, problem.message, Date.now() - started, retryAt(run.attempt, now, { needsAttention: problem.needsAttention, backfill: run.backfill }));
  if (problem.needsAttention) await markNeedsAttention(run.destination_id, problem.message);
  return summary("failed", { rows: 0, files: 0, bytes: 0 }, problem.message);
}

/**
 * The next range of a destination's type due now, or null: events after the watermark; aggregates
 * the local day, in the account's zone now, after the last one delivered (the zone of a day is
 * fixed when it is planned, so a day planned before a change of zone is retried in the old one).
 */
async function nextDue(
  destination: DestinationWithSecret,
  type: ExportType,
  now: Date,
  settled: Date,
  eager: boolean,
): Promise<(TimeRange & { zone: string | null }) | null> {
  const watermark = await watermarkOf(destination.id, type);
  if (isEventType(type)) {
    const range = nextRange(watermark?.at ?? initialWatermark(destination.createdAt), now, eager, settled);
    return range && { ...range, zone: null };
  }
  return nextAggregateDay(watermark, destination.createdAt, destination.timeZone, now, eager, settled);
}

/**
 * The next run of a destination's type, delivered: an unfinished scheduled run (failed and due
 * again, or left running by a worker that died: the caller holds the lock, so nobody else runs
 * it), else a new run for the next range due; null when there is nothing to do.
 */
async function nextScheduledRun(
  destination: DestinationWithSecret,
  type: ExportType,
  now: Date,
  settled: Date,
  options: RunExportsOptions,
): Promise<ExportRunSummary | null> {
  const unfinished = await unfinishedRun(destination.id, type);
  if (unfinished) {
    if (!isResumable({ status: unfinished.status, nextAttemptAt: unfinished.next_attempt_at }, now)) return null;
    const resumed = await resumeRun(unfinished.id);
    return executeRun(destination, () => scopeOfAccount(destination.accountId), resumed, false, options, now);
  }
  const range = await nextDue(destination, type, now, settled, options.eager ?? false);
  if (!range) return null;
  const scope = await scopeOfAccount(destination.accountId);
  const run = await planRun(destination, scope, type, range, false, planOptions(options));
  return executeRun(destination, async () => scope, run, true, options, now);
}

/**
 * Everything before this time is settled and where the export reads it: with ClickHouse as the
 * store, a batch not shipped yet holds the export back to a margin before its earliest row, so a
 * closed batch never misses a row that arrives in ClickHouse later.
 */
async function readableBefore(now: Date): Promise<Date> {
  const settled = await settledBefore(now);
  const unshipped = await store().shipping?.oldestUnshippedRow();
  if (!unshipped) return settled;
  return new Date(Math.min(settled.getTime(), unshipped.getTime() - SETTLE_HORIZON_MARGIN_MS));
}

/**
 * Delivers every due batch, whole, until the budget is nearly spent. Returns the runs it did and
 * whether due work is left for the next call. Destinations and types take turns, one batch each
 * per round, so one far behind (after an outage) delays the others by a batch, not its backlog.
 */
export async function runDueExports(options: RunExportsOptions = {}): Promise<{ runs: ExportRunSummary[]; unfinished: boolean }> {
  // One "now" for the whole call: it delivers what was due when it started, so a call ends even
  // when batches keep arriving (and an eager call does not chase its own tail).
  const now = (options.now ?? (() => new Date()))();
  const settled = await readableBefore(now);
  const began = Date.now();
  const budget = options.budgetMs ?? Number.POSITIVE_INFINITY;
  const runs: ExportRunSummary[] = [];
  let longest = 0;
  let turns = (await activeDestinations(options.destinationId ?? null)).flatMap((row) =>
    EXPORT_TYPES.filter((type) => row.types.includes(type) && (!options.types || options.types.includes(type))).map((type) => ({ id: row.id, type })),
  );
  while (turns.length > 0) {
    const again: typeof turns = [];
    for (const turn of turns) {
      if (!startsInBudget(Date.now() - began, longest, budget)) return { runs, unfinished: true };
      const destination = await destinationWithSecret(turn.id);
      if (destination?.status !== "active") continue;
      const outcome = await withLock(turn.id, turn.type, () => nextScheduledRun(destination, turn.type, now, settled, options));
      if (outcome === "locked" || outcome === null) continue;
      runs.push(outcome);
      options.onRun?.(outcome);
      longest = Math.max(longest, outcome.durationMs);
      if (outcome.status !== "failed") again.push(turn);
    }
    turns = again;
  }
  return { runs, unfinished: false };
}

/**
 * Delivers a range by hand (npm run export -- --from --to): per day, each type's rows of that day
 * (events of the UTC day, in as many capped batches as it needs; aggregates of the local day in the
 * account's zone), as runs marked backfill that leave the watermark where it is.
 */
export async function backfillExports(options: RunExportsOptions & { destinationId: string; fromDay: string; toDay: string }): Promise<ExportRunSummary[]> {
  const destination = await destinationWithSecret(options.destinationId);
  if (!destination) throw new Error(`no export destination ${options.destinationId}`);
  const runs: ExportRunSummary[] = [];
  const types = EXPORT_TYPES.filter((type) => destination.types.includes(type) && (!options.types || options.types.includes(type)));
  for (const day of backfillDays(options.fromDay, options.toDay)) {
    for (const type of types) {
      const whole = isEventType(type) ? { start: dayStart(day), end: dayStart(addDays(day, 1)), zone: null } : aggregateDay(day, destination.timeZone);
      for (let start = whole.start.getTime(); start < whole.end.getTime(); ) {
        const range = { ...whole, start: new Date(start) };
        const outcome = await withLock(destination.id, type, async () => {
          const scope = await scopeOfAccount(destination.accountId);
          const run = await planRun(destination, scope, type, range, true, planOptions(options));
          return executeRun(destination, async () => scope, run, true, options, new Date());
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

/**
 * Delivers what can be delivered now (events up to 5 minutes ago, complete days), without waiting
 * for the schedule, within 4 minutes; what is left is delivered on schedule.
 */
export async function runDestinationNow({ actor, id, type }: { actor: Actor; id: string; type?: ExportTypeName }) {
  const destination = await getDestination(id, { actor });
  assertMayChange(actor, destination.accountId, "account");
  const { runs, unfinished } = await runDueExports({ destinationId: id, types: type ? [type] : undefined, eager: true, budgetMs: 240_000 });
  return { runs, unfinished };
}
