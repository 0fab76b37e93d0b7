// Reading a whole query result without holding it: a cursor in a read-only transaction, fetched a
// batch at a time, with the next batch on its way while the caller works on this one (at most two
// batches in memory). Report downloads and export batches read their rows this way, on the bulk
// pool (pg-pool.ts), so that slow readers never hold the connections that requests need.
import { bulkPool } from "./pg-pool";

export interface CursorOptions {
  /** Rows per FETCH. */
  batch: number;
  /** `array`: rows as arrays in the SELECT's column order (no object per row). */
  rowMode?: "array";
  /** SET LOCAL settings for the transaction, e.g. `work_mem = '32MB'`. */
  settings?: string[];
}

/**
 * The rows of `sql`, batch by batch. However the caller stops (done, an error, or a `return()` when
 * a download's client goes away), the transaction ends and the connection goes back to the pool.
 */
export async function* cursorBatches<Row>(sql: string, values: unknown[], options: CursorOptions): AsyncGenerator<Row[]> {
  const client = await bulkPool().connect();
  let failed = false;
  try {
    // A cursor is planned for its first tenth of rows by default; these read all of them.
    const settings = ["cursor_tuple_fraction = 1", ...(options.settings ?? [])].map((setting) => `SET LOCAL ${setting}`).join("; ");
    await client.query(`BEGIN READ ONLY; ${settings}`);
    await client.query(`DECLARE all_rows NO SCROLL CURSOR FOR ${sql}`, values);
    const fetchBatch = () => {
      const fetching = client.query<Row & object>({ text: `FETCH ${options.batch} FROM all_rows`, ...(options.rowMode ? { rowMode: options.rowMode } : {}) });
      fetching.catch(() => {}); // awaited below; a reader that stops meanwhile must not leave it unhandled
      return fetching;
    };
    let next = fetchBatch();
    for (;;) {
      const { rows } = await next;
      const more = rows.length === options.batch;
      if (more) next = fetchBatch();
      if (rows.length > 0) yield rows as Row[];
      if (!more) break;
    }
    await client.query("COMMIT");
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    if (!failed) await client.query("ROLLBACK").catch(() => {});
    client.release(failed);
  }
}
