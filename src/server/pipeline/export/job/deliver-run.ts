// A run from its plan to its delivered files. Planning fixes the batch's range (ended early when
// it would pass the row cap) and, from its row count, the object keys, stored before anything is
// uploaded. Delivery keeps the files true to the rows: when the rows no longer number what the
// keys were planned for (rows committed late into the range, a set-aside row, another number of
// rows per file) the same range is planned again, with new keys in a new folder and the old keys
// deleted before the new files go up; when a row's data fails the batch, that row is found
// (poison.ts), set aside on the run, and the rest is delivered.
import { randomBytes } from "node:crypto";
import { TallyError } from "@/server/core/errors";
import { extensionOf, isEventType } from "@/server/core/export-types";
import { localDay, UTC } from "@/server/core/time-zones";
import type { ExportType } from "@/server/db/generated/enums";
import type { DestinationWithSecret } from "@/server/pipeline/export/destinations/destinations";
import { store } from "@/server/store";
import type { ReportScope } from "@/server/store/report-query";
import { type DeliveryOptions, deliverBatch } from "./deliver-batch";
import { isolateBadRows, isRowDataError } from "./poison";
import { insertRun, type RunRow, recordSetAside, replanRun } from "./runs.sql";
import { filesFor, MAX_PLANS_PER_CALL, ROWS_PER_FILE, type TimeRange } from "./schedule";

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * TYPE/YYYY/MM/DD/TIMESTAMP_NS/<random>.ext under the prefix: dated by `day` (an aggregate run's
 * local date) or else by the plan's time (UTC), and stamped with the plan's time.
 */
export function planKeys(prefix: string, type: ExportType, plannedAt: Date, files: number, day: string | null = null): string[] {
  const date = day ? day.replaceAll("-", "/") : `${plannedAt.getUTCFullYear()}/${pad(plannedAt.getUTCMonth() + 1)}/${pad(plannedAt.getUTCDate())}`;
  const folder = `${prefix}${type}/${date}/${BigInt(plannedAt.getTime()) * 1_000_000n}/`;
  return Array.from({ length: files }, () => `${folder}${randomBytes(12).toString("hex")}${extensionOf(type)}`);
}

/** The zone of a run's range: an aggregate run's local day's (UTC for those from before zones); null for events. */
export const zoneOfRun = (run: Pick<RunRow, "type" | "time_zone">): string | null => (isEventType(run.type) ? null : (run.time_zone ?? UTC));

/** The local date an aggregate run covers (its range starts at that date's first moment); null for events. */
export function dayOfRun(run: Pick<RunRow, "type" | "time_zone" | "range_start">): string | null {
  const zone = zoneOfRun(run);
  return zone === null ? null : localDay(run.range_start, zone);
}

export interface PlanOptions {
  rowsPerFile: number;
  maxRowsPerBatch: number;
}

/**
 * Plans and stores a batch over `range`, which ends early when it would hold more than the cap.
 * `zone`: an aggregate batch's, whose range is one local day of it (null for events).
 */
export async function planRun(
  destination: DestinationWithSecret,
  scope: ReportScope,
  type: ExportType,
  range: TimeRange & { zone: string | null },
  backfill: boolean,
  plan: PlanOptions,
): Promise<RunRow> {
  const zone = isEventType(type) ? null : (range.zone ?? UTC);
  let end = range.end;
  let rows = await store()
    .exports.batch(type, scope, { rangeStart: range.start, rangeEnd: end, zone: zone ?? undefined })
    .count();
  // Only a batch over the cap pays for finding where to end it (a sort of its rows' times).
  if (isEventType(type) && rows > plan.maxRowsPerBatch) {
    end = await store().exports.cappedEnd(type, scope, range, plan.maxRowsPerBatch);
    rows = await store().exports.batch(type, scope, { rangeStart: range.start, rangeEnd: end }).count();
  }
  const startedAt = new Date();
  const keys = planKeys(destination.prefix, type, startedAt, filesFor(type, rows, plan.rowsPerFile), zone === null ? null : localDay(range.start, zone));
  return insertRun({ destinationId: destination.id, type, range: { start: range.start, end }, zone, keys, rows, backfill, startedAt });
}

export type RunDelivery = { run: RunRow } & ({ status: "delivered"; rows: number; files: number; bytes: number } | { status: "failed"; error: unknown });

/**
 * Delivers a planned run, planning it again as often as its rows change (MAX_PLANS_PER_CALL at
 * most). `fresh`: planned by this call just now, so its row count needs no second look before the
 * first try. Returns the run as it ends up (keys, rows set aside) with the outcome; a failure is
 * returned, not thrown, for the caller to record.
 */
export async function deliverRun(
  destination: DestinationWithSecret,
  scope: ReportScope,
  planned: RunRow,
  fresh: boolean,
  options: DeliveryOptions,
): Promise<RunDelivery> {
  const rowsPerFile = options.rowsPerFile ?? ROWS_PER_FILE;
  let run = planned;
  try {
    let checkRows = !fresh;
    for (let plans = 0; ; plans += 1) {
      if (plans === MAX_PLANS_PER_CALL) throw new TallyError("internal", "the batch's rows kept changing while it was delivered; it is tried again later");
      const exclude = run.set_aside.map((row) => row.id);
      const range = { rangeStart: run.range_start, rangeEnd: run.range_end, zone: zoneOfRun(run) ?? undefined };
      // The planned files must still match: the rows now (set-aside ones left out), and the rows per file.
      const rows = checkRows ? await store().exports.batch(run.type, scope, range).count({ exclude }) : Number(run.planned_rows);
      if (rows !== Number(run.planned_rows) || run.keys.length !== filesFor(run.type, rows, rowsPerFile)) {
        run = await replanRun(run.id, planKeys(destination.prefix, run.type, new Date(), filesFor(run.type, rows, rowsPerFile), dayOfRun(run)), rows);
      }
      checkRows = true;
      let delivery: Awaited<ReturnType<typeof deliverBatch>>;
      try {
        delivery = await deliverBatch(
          destination,
          scope,
          {
            id: run.id,
            type: run.type,
            ...range,
            keys: run.keys,
            plannedRows: Number(run.planned_rows),
            exclude,
            staleKeys: run.stale_keys ?? [],
          },
          { ...options, rowsPerFile },
        );
      } catch (error) {
        if (!isRowDataError(error)) throw error;
        const found = await isolateBadRows(store().exports.batch(run.type, scope, range, destination.aggregateLayout), exclude);
        if (found.length === 0) throw error; // it did not fail again row by row: a failure like any other
        run = await recordSetAside(run.id, found);
        continue; // fewer rows now: planned again, and delivered without them
      }
      if (delivery.status === "changed") continue;
      return { run, status: "delivered", rows: delivery.rows, files: delivery.files, bytes: delivery.bytes };
    }
  } catch (error) {
    return { run, status: "failed", error };
  }
}
