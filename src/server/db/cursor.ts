// Reading a whole query result without holding it: a cursor in a read-only transaction, fetched a
// batch at a time, with the next batch on its way while the caller works on this one (at most two
// batches in memory). Report downloads and export batches read their rows this way, on the bulk
// pool (pg-pool.ts), so that slow readers never hold the connections that requests need.
import type pg from "pg";
import type { Sql } from "sql-template-tag";
import { declareCursor, fetchRows } from "./cursor.sql";
import { bulkPool } from "./pg-pool";
import { beginReadOnly, COMMIT, ROLLBACK } from "./transaction.sql";

export interface CursorOptions {
  /** Rows per FETCH. */
  batch: number;
  /** `array`: rows as arrays in the SELECT's column order (no object per row). */
  rowMode?: "array";
  /** SET LOCAL settings for the transaction, e.g. `work_mem = '32MB'`. */
  settings?: string[];
  /**
   * Runs on the cursor's connection inside its transaction before the query starts: a download
   * takes its transaction-level advisory locks here, so they end with the transaction whatever
   * ends it. When it throws, the transaction ends, the connection goes back, and openCursor throws that.
   */
  claim?: (client: pg.PoolClient) => Promise<void>;
}

/** An open cursor: its batches, and close(), which ends the transaction and gives the connection back. */
export interface Cursor<Row> {
  batches: AsyncGenerator<Row[]>;
  /** Idempotent; safe while a FETCH is under way (the ROLLBACK queues behind it). */
  close(): Promise<void>;
  /** Settles once the connection has gone back: read to the end (`done`), closed early, or failed (a lost connection too). */
  ended: Promise<"done" | "closed" | "failed">;
}

/**
 * Takes a bulk connection, begins the transaction and declares the cursor: a caller that must
 * answer before the first row (a download's status) learns here that it cannot have one. The
 * caller must close() it, whether or not it reads any batch. `query` may be built only once the
 * claim has been granted (a function), for a query whose making costs something a refused reader
 * should not get (another store's read).
 */
// Over 80 lines on purpose: the connection's whole life (take, begin, claim, declare, fetch, end) in one place, so every way out gives it back.
export async function openCursor<Row>(query: Sql | (() => Promise<Sql>), options: CursorOptions): Promise<Cursor<Row>> {
  const client = await bulkPool().connect();
  let closed = false;
  let markEnded: (how: "done" | "closed" | "failed") => void = () => {};
  const ended = new Promise<"done" | "closed" | "failed">((resolve) => {
    markEnded = resolve;
  });
  const release = (how: "done" | "closed" | "failed", failure?: Error | true) => {
    client.off("error", lost);
    client.release(failure);
    markEnded(how);
  };
  /** Ends the transaction and gives the connection back; after a failure the connection is dropped instead (its state is unknown, and closing it ends the transaction). */
  const close = async (failure?: unknown) => {
    if (closed) return;
    closed = true;
    if (failure !== undefined) return release("failed", failure instanceof Error ? failure : true);
    try {
      await client.query(ROLLBACK);
      release("closed");
    } catch (error) {
      release("failed", error instanceof Error ? error : true);
    }
  };
  // A connection that dies between two FETCHes (a timeout, a restart) ends the cursor at once,
  // not when its reader next asks.
  const lost = (error: Error) => void close(error);
  client.on("error", lost);
  try {
    // A cursor is planned for its first tenth of rows by default; these read all of them.
    await client.query(beginReadOnly(["cursor_tuple_fraction = 1", ...(options.settings ?? [])]));
  } catch (error) {
    await close(error);
    throw error;
  }
  try {
    await options.claim?.(client);
  } catch (refusal) {
    await close();
    throw refusal;
  }
  let text: Sql;
  try {
    text = typeof query === "function" ? await query() : query;
  } catch (failure) {
    // Nothing ran on the connection: it goes back whole, and the maker's failure goes to the caller.
    await close();
    throw failure;
  }
  try {
    await client.query(declareCursor(text));
  } catch (error) {
    await close(error);
    throw error;
  }

  async function* batches(): AsyncGenerator<Row[]> {
    const fetchBatch = () => {
      const fetch = fetchRows(options.batch);
      const fetching = client.query<Row & object>({ text: fetch.text, values: fetch.values, ...(options.rowMode ? { rowMode: options.rowMode } : {}) });
      fetching.catch(() => {}); // awaited below; a reader that stops meanwhile must not leave it unhandled
      return fetching;
    };
    try {
      let next = fetchBatch();
      for (;;) {
        const { rows } = await next;
        if (closed) throw new Error("the cursor was closed");
        const more = rows.length === options.batch;
        if (more) next = fetchBatch();
        if (rows.length > 0) yield rows as Row[];
        if (closed) throw new Error("the cursor was closed");
        if (!more) break;
      }
    } catch (error) {
      await close(error);
      throw error;
    }
    if (!closed) {
      closed = true;
      try {
        await client.query(COMMIT);
        release("done");
      } catch (error) {
        release("failed", error instanceof Error ? error : true);
        throw error;
      }
    }
  }

  return { batches: batches(), close: () => close(), ended };
}

/**
 * The rows of `query`, batch by batch. However the caller stops (done, an error, or a `return()` when
 * a download's client goes away), the transaction ends and the connection goes back to the pool.
 */
export async function* cursorBatches<Row>(query: Sql, options: CursorOptions): AsyncGenerator<Row[]> {
  const cursor = await openCursor<Row>(query, options);
  try {
    yield* cursor.batches;
  } finally {
    await cursor.close();
  }
}
