// The rows of one export batch as SQL, and the reads the export makes of them: counts, the rows
// themselves through a cursor, row ids for splitting a batch, and where a capped batch ends.
// Every read here is a batch-sized scan, so all of them go to the bulk pool (pg-pool.ts), never
// to the connections that requests wait for. Whose rows: the destination's account's scope, as its
// reports have it, looked up once per run (scopeOfAccount) and handed to every read of the run.

import { utcDay } from "@/server/core/days";
import { cursorBatches } from "@/server/db/cursor";
import type { ExportType } from "@/server/db/generated/enums";
import { bulkPool } from "@/server/db/pg-pool";
import type { CsvValue } from "@/server/formats/csv";
import { type AggregateType, type EventType, isEventType } from "@/server/pipeline/export/export-types";
import { accountCaller, type ReportScope, reportScope } from "@/server/pipeline/report/report-scope";
import { AGGREGATE_LAYOUTS, type BatchParts, EVENT_LAYOUTS } from "./layouts";

const FETCH_ROWS = 5_000;

export interface BatchRange {
  rangeStart: Date;
  rangeEnd: Date;
}

/** One batch's rows: the SQL, its parameters, and how a database row becomes the file's cells. */
export interface BatchRows extends BatchParts {
  type: ExportType;
  values: unknown[];
  rowMode?: "array";
  /** A database row as the file's cells, in column order; throws for a row that cannot be written. */
  cells: (raw: unknown) => unknown[];
}

/** The rows an account may receive: an advertiser its own campaigns', a publisher its inventory's, a network its own and its sub-publishers'. */
export async function scopeOfAccount(accountId: string): Promise<ReportScope> {
  const caller = await accountCaller(accountId);
  if (!caller) throw new Error(`account ${accountId} no longer exists`);
  return reportScope(caller);
}

export function batchRows(type: ExportType, scope: ReportScope, range: BatchRange): BatchRows {
  if (isEventType(type)) {
    return {
      type,
      ...EVENT_LAYOUTS[type].parts(scope),
      values: [range.rangeStart, range.rangeEnd, scope.advertiserId, scope.publisherIds],
      rowMode: "array",
      cells: (raw) => raw as unknown[],
    };
  }
  const layout = AGGREGATE_LAYOUTS[type as AggregateType];
  const day = utcDay(range.rangeStart);
  const statement = layout.statement(scope, day);
  return {
    // The report statement as a subquery: a filter over it keeps the statement's own sort (a
    // subquery scan emits rows in the order its sorted input has), and `id` is each report row's.
    type,
    select: "r.*",
    from: `(${statement.sql}) r`,
    where: "true",
    order: null,
    id: "r.id",
    values: statement.values(null, 0),
    cells: (raw) => {
      const row = statement.row(raw as object);
      return layout.columns.map((name): CsvValue => (name === "day" ? day : (row[name] ?? null)));
    },
  };
}

/** Which rows of a batch: not the set-aside ids, and those whose id is in (after, upTo] (in byte order). */
export interface RowFilter {
  exclude?: readonly string[];
  after?: string | null;
  upTo?: string | null;
}

function filtered(rows: BatchRows, filter: RowFilter): { where: string; values: unknown[] } {
  // Only the conditions in use: a batch with nothing set aside reads with the layout's own SQL.
  const values = [...rows.values];
  const conditions = [`(${rows.where})`];
  const id = `(${rows.id}) COLLATE "C"`;
  if (filter.exclude && filter.exclude.length > 0) {
    values.push(filter.exclude);
    conditions.push(`NOT ((${rows.id}) = ANY($${values.length}::text[]))`);
  }
  if (filter.after != null) {
    values.push(filter.after);
    conditions.push(`${id} > $${values.length}`);
  }
  if (filter.upTo != null) {
    values.push(filter.upTo);
    conditions.push(`${id} <= $${values.length}`);
  }
  return { where: conditions.join(" AND "), values };
}

export async function countRows(rows: BatchRows, filter: RowFilter = {}): Promise<number> {
  const { where, values } = filtered(rows, filter);
  const { rows: result } = await bulkPool().query<{ rows: number }>(`SELECT count(*)::int AS rows FROM ${rows.from} WHERE ${where}`, values);
  return result[0]!.rows;
}

/** The database rows, page by page, in the file's order (or any order, for a probe). */
export function readRows(rows: BatchRows, filter: RowFilter = {}, options: { ordered?: boolean } = {}): AsyncGenerator<unknown[]> {
  const { where, values } = filtered(rows, filter);
  const order = options.ordered === false || rows.order === null ? "" : ` ORDER BY ${rows.order}`;
  return cursorBatches<unknown>(`SELECT ${rows.select} FROM ${rows.from} WHERE ${where}${order}`, values, {
    batch: FETCH_ROWS,
    ...(rows.rowMode ? { rowMode: rows.rowMode } : {}),
  });
}

/** The id at `offset` (from 0) in id order among the filtered rows, or null. */
export async function idAt(rows: BatchRows, filter: RowFilter, offset: number): Promise<string | null> {
  const { where, values } = filtered(rows, filter);
  const { rows: result } = await bulkPool().query<{ id: string }>(
    `SELECT (${rows.id}) AS id FROM ${rows.from} WHERE ${where} ORDER BY (${rows.id}) COLLATE "C" OFFSET $${values.length + 1} LIMIT 1`,
    [...values, offset],
  );
  return result[0]?.id ?? null;
}

/** The greatest id below `id` among the filtered rows, or null. */
export async function idBefore(rows: BatchRows, filter: RowFilter, id: string): Promise<string | null> {
  const { where, values } = filtered(rows, filter);
  const { rows: result } = await bulkPool().query<{ id: string | null }>(
    `SELECT max((${rows.id}) COLLATE "C") AS id FROM ${rows.from} WHERE ${where} AND (${rows.id}) COLLATE "C" < $${values.length + 1}`,
    [...values, id],
  );
  return result[0]?.id ?? null;
}

/**
 * Where an event batch over (start, end] must end to hold at most `maxRows` rows: `end` itself
 * when it holds no more. Otherwise just before the first row past the cap, so that rows of one
 * millisecond never straddle two batches; when that millisecond alone holds more than the cap, it
 * goes whole (a batch is a range of time, and cannot end inside one).
 */
export async function cappedEnd(type: EventType, scope: ReportScope, range: { start: Date; end: Date }, maxRows: number): Promise<Date> {
  const { rows } = await bulkPool().query<{ at: Date }>(`SELECT at FROM (${EVENT_LAYOUTS[type].times(scope)}) t ORDER BY at OFFSET $5 LIMIT 1`, [
    range.start,
    range.end,
    scope.advertiserId,
    scope.publisherIds,
    maxRows,
  ]);
  const next = rows[0]?.at;
  if (!next) return range.end;
  const before = new Date(next.getTime() - 1);
  return before > range.start ? before : next;
}
