// What is due when (docs/interface-decisions.md §6; docs/export.md, "Schedule and delivery guarantees"), as pure
// functions of a watermark, a clock reading and a run's history: events hourly, every row received
// since the watermark up to a settling margin; aggregates daily, for the previous local day of the
// destination's account's zone, 3 hours after its end (03:00 local); back-off after failures; "run now"; how many rows a batch and a file hold. No database
// and no clock of its own, so every rule is tested as it is (schedule.test.ts).

import { addDays, DAY_MS, startOfUtcDay } from "@/server/core/days";
import { isEventType } from "@/server/core/export-types";
import { localDay, localRangeSpan } from "@/server/core/time-zones";
import type { ExportType } from "@/server/db/generated/enums";

const HOUR_MS = 3_600_000;
/** Rows younger than this may still be in open transactions: a batch ends this far before now. */
export const SETTLE_MS = 5 * 60_000;
/** An event batch waits until it spans an hour, and spans a day at most. */
export const EVENT_BATCH_MIN_MS = HOUR_MS;
export const EVENT_BATCH_MAX_MS = DAY_MS;
/** Aggregates of a local day are delivered 3 hours after it ends: 03:00 local the next day. */
export const AGGREGATE_DELAY_MS = 3 * HOUR_MS;
/**
 * Events in one batch at most: five files of ROWS_PER_FILE. A batch is read, written and uploaded
 * in one go, so this bounds how long one takes (and what a retry repeats) after an outage or on a
 * busy day; the rest of the range goes in the next batch.
 */
export const MAX_ROWS_PER_BATCH = 5_000_000;
/** Files are split at this many rows (docs/export.md), so any consumer can read one whole. */
export const ROWS_PER_FILE = 1_000_000;
/** Plans of one batch in one call: rows that keep changing under it wait for the next call. */
export const MAX_PLANS_PER_CALL = 5;

export interface TimeRange {
  start: Date;
  end: Date;
}

/** Where a destination's events start: the start of the UTC day it was created. */
export function initialWatermark(createdAt: Date): Date {
  return startOfUtcDay(createdAt);
}

/**
 * The next event batch after `watermark` that is due at `now`, or null: every row received since
 * the watermark up to the settling margin, once that spans an hour (a day at most). `eager` ("run
 * now" from the dashboard): however short the span. `settled`: every beacon accepted before it is
 * settled (settled-horizon.ts); a batch never closes over beacons still waiting in the log.
 */
export function nextRange(watermark: Date, now: Date, eager: boolean, settled: Date = now): TimeRange | null {
  const start = watermark.getTime();
  const ready = Math.min(now.getTime() - SETTLE_MS, settled.getTime());
  if (ready - start < (eager ? 1 : EVENT_BATCH_MIN_MS)) return null;
  return { start: watermark, end: new Date(Math.min(ready, start + EVENT_BATCH_MAX_MS)) };
}

/** How far a destination's aggregates are delivered: to `at`, the local midnight in `zone` that ends the last day delivered. */
export interface AggregateWatermark {
  at: Date;
  zone: string;
}

/** One local day's aggregates: the date, its zone, and the UTC moments it spans, [start, end). */
export interface AggregateDay extends TimeRange {
  day: string;
  zone: string;
}

/** A local date's span in a zone (23 or 25 hours on daylight-saving changes). */
export function aggregateDay(day: string, zone: string): AggregateDay {
  const { from, to } = localRangeSpan({ startDate: day, endDate: day }, zone);
  return { day, zone, start: from, end: to };
}

/**
 * The date of the next aggregate file: the one after the last delivered (the date beginning at
 * the watermark, in the zone it was written in), or, before the first, the day before the local
 * date the destination was created. A date, not a moment: when the account's zone changes, the
 * next file is the next date in the new zone, so no date is delivered twice or skipped.
 */
export const nextAggregateDate = (watermark: AggregateWatermark | null, createdAt: Date, zone: string): string =>
  watermark ? localDay(watermark.at, watermark.zone) : addDays(localDay(createdAt, zone), -1);

/**
 * The next local day's aggregates in `zone` due at `now`, or null: due 3 hours after the day's
 * end (03:00 local, whatever the day's length), once every beacon before that end is settled.
 * `eager` ("run now"): as soon as the day is over and settled.
 */
export function nextAggregateDay(
  watermark: AggregateWatermark | null,
  createdAt: Date,
  zone: string,
  now: Date,
  eager: boolean,
  settled: Date = now,
): AggregateDay | null {
  const next = aggregateDay(nextAggregateDate(watermark, createdAt, zone), zone);
  const due = now.getTime() >= next.end.getTime() + (eager ? 0 : AGGREGATE_DELAY_MS) && settled.getTime() >= next.end.getTime();
  return due ? next : null;
}

/** Back-off after a failed attempt: 1, 2, 4, ... minutes, at most an hour. */
export const backoffMs = (attempt: number) => Math.min(HOUR_MS, 60_000 * 2 ** Math.max(0, attempt - 1));

/**
 * When a run that failed at `failedAt` is tried again: after its back-off; never on a timer when
 * the error needs a person (the destination waits for an update) or the run was a backfill (run by
 * hand, so redone by hand).
 */
export function retryAt(attempt: number, failedAt: Date, why: { needsAttention: boolean; backfill: boolean }): Date | null {
  return why.needsAttention || why.backfill ? null : new Date(failedAt.getTime() + backoffMs(attempt));
}

/** Whether an unfinished run is to be worked on now: one left running (by a worker that died) or failed and past its back-off. */
export const isResumable = (run: { status: string; nextAttemptAt: Date | null }, now: Date): boolean =>
  !(run.status === "failed" && run.nextAttemptAt !== null && run.nextAttemptAt > now);

/** How many files a batch of `rows` rows makes: events none when empty, aggregates always one (a header-only CSV says the day had nothing). */
export const filesFor = (type: ExportType, rows: number, rowsPerFile = ROWS_PER_FILE) =>
  isEventType(type) ? Math.ceil(rows / rowsPerFile) : Math.max(1, Math.ceil(rows / rowsPerFile));

/** Whether a call with `budgetMs` to spend may start another batch: only if one as long as the longest so far (and 30 s more) still fits. */
export const startsInBudget = (elapsedMs: number, longestMs: number, budgetMs: number) => elapsedMs + Math.max(30_000, longestMs * 1.5) <= budgetMs;

/** Each date of a backfill, `fromDay` to `toDay` (YYYY-MM-DD) inclusive. */
export function backfillDays(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  for (let day = fromDay; day <= toDay; day = addDays(day, 1)) days.push(day);
  return days;
}
