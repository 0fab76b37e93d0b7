// Poison isolation: a batch that fails on one row's data (Postgres SQLSTATE class 22 or 23 while
// reading it, or a cell the writers cannot encode) must not hold back every other row of the
// destination forever. The batch is split into ranges of row ids, each range read and encoded
// again (writing nothing), and a failing range split again until each bad row stands alone; those
// rows are set aside with their reason and the rest is delivered. A range is (after, upTo] in the
// byte order of the layout's row id (layouts.ts), and is split at its middle id: ids are unique,
// so both halves are smaller and the search ends. A read past its statement timeout, or a
// RangeError while encoding, is searched for the same way. Connection and S3 errors are not the
// rows' fault: they fail the run, which is retried as before.
import { isDataError, isTransientFailure, isUnknownZoneError, sqlstateOf } from "@/server/db/failures";
import type { ExportBatch, RowFilter } from "@/server/store/export-rows";
import { isUnwritableRow, openFileWriter } from "./file-writer";

/**
 * Bad rows one search looks for: it stops at this many, which are set aside, and the next
 * attempt looks for the next ones. Each search is bounded, and a batch of many bad rows still
 * moves forward instead of failing the same way for ever.
 */
export const MAX_SET_ASIDE_ROWS = 100;

export interface SetAsideRow {
  /** The row's id in its layout (event_id; conversion_id/item_position for order items; the report row's id). */
  id: string;
  reason: string;
  /** Rows with this id (1: ids are unique). */
  rows: number;
}

/**
 * The rows are at fault, not the database, the network or the bucket: a data error, a cell the
 * writers cannot encode, a read the rows make run past its time or out of memory (a SQLSTATE that
 * is not the database's health: src/server/db/failures.ts), or a RangeError while encoding.
 */
export const isRowDataError = (error: unknown): boolean =>
  // A kept zone Postgres no longer knows fails every row of an account's aggregates alike: the run fails and waits (store/unknown-zones.sql.ts).
  !isUnknownZoneError(error) &&
  (isDataError(error) || isUnwritableRow(error) || (sqlstateOf(error) !== null && !isTransientFailure(error)) || error instanceof RangeError);

export function reasonOf(error: unknown): string {
  const e = error as { message?: string; code?: string };
  const message = e.message ?? String(error);
  return (isDataError(error) ? `${message} (SQLSTATE ${e.code})` : message).slice(0, 300);
}

/** Reads and encodes the filtered rows, writing nothing: null when every row can be, else the reason. Other errors are thrown. */
async function probe(rows: ExportBatch, filter: RowFilter): Promise<string | null> {
  const writer = openFileWriter(rows, async () => {});
  try {
    for await (const page of rows.read(filter, { ordered: false })) await writer.write(page);
    await writer.close();
    return null;
  } catch (error) {
    if (isRowDataError(error)) return reasonOf(error);
    throw error;
  }
}

/**
 * The rows of the batch (less those already set aside, `exclude`) that cannot be read or
 * encoded, each with its reason, in id order and at most `limit` of them (the first ones); empty
 * when the whole batch now reads (the failure did not come back).
 */
export async function isolateBadRows(rows: ExportBatch, exclude: readonly string[], limit = MAX_SET_ASIDE_ROWS): Promise<SetAsideRow[]> {
  const found: SetAsideRow[] = [];
  let badRows = 0;
  const ranges: { after: string | null; upTo: string | null }[] = [{ after: null, upTo: null }];
  while (ranges.length > 0) {
    const range = ranges.pop()!;
    const filter = { exclude, ...range };
    const count = await rows.count(filter);
    if (count === 0) continue;
    const reason = await probe(rows, filter);
    if (reason === null) continue;
    let cut: string | null = null;
    if (count > 1) {
      cut = await rows.idAt(filter, Math.floor(count / 2) - 1);
      // Should ids repeat, every row may sit at or below the middle one: cut below it instead.
      if (cut !== null && (await rows.count({ ...filter, upTo: cut })) === count) cut = await rows.idBefore(filter, cut);
    }
    if (cut === null) {
      // One row (or rows sharing one id): it stands alone.
      const id = (await rows.idAt(filter, 0))!;
      found.push({ id, reason, rows: count });
      badRows += count;
      if (badRows >= limit) return found;
      continue;
    }
    // Depth first, lower ids first: the rows are found in id order.
    ranges.push({ after: cut, upTo: range.upTo }, { after: range.after, upTo: cut });
  }
  return found;
}
