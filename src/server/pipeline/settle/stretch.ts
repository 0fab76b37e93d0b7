// One settle step, whatever the log: take its cursor (or leave it to the worker holding it), read
// the next stretch in commit-safe order (bounded in rows and bytes by the log's own readStretch),
// settle it around the items that fail, whatever their failure (src/server/db/isolate-failures.ts),
// and move the cursor past what was handled, all in one transaction. A worker that dies
// mid-stretch (a crash, SIGKILL, a lost connection) leaves nothing behind: Postgres rolls its
// transaction back, the row lock goes with the connection, and the next worker settles the same
// stretch again.
import type pg from "pg";
import { env } from "@/env";
import { isolateFailures } from "@/server/db/isolate-failures";
import { pgPool } from "@/server/db/pg-pool";
import { BEGIN, COMMIT, ROLLBACK } from "@/server/db/transaction.sql";

/** Where a log's cursor stands: the last (accepted_xid, seq) settled, as text. */
export interface CursorPosition {
  last_xid: string;
  last_seq: string;
}

/** A log row as read: its place in the log's order, as text. */
export interface LogPosition {
  accepted_xid: string;
  seq: string;
}

export interface StretchSteps<R extends LogPosition, I, O> {
  /** Locks the cursor row FOR UPDATE SKIP LOCKED; undefined when another worker holds it. */
  takeCursor: (client: pg.PoolClient) => Promise<CursorPosition | undefined>;
  /** The next rows after the cursor, in order; `full` when a bound (rows or bytes) ended the stretch, so more may wait. */
  readStretch: (client: pg.PoolClient, cursor: CursorPosition) => Promise<{ rows: R[]; full: boolean }>;
  /** The item of a row; run inside the isolation, so a row it cannot make is set aside like any other failure. */
  toItem: (row: R) => I;
  settle: (client: pg.PoolClient, items: I[]) => Promise<O[]>;
  setAside: (client: pg.PoolClient, row: R, error: unknown) => Promise<void>;
  moveCursor: (client: pg.PoolClient, last: R, count: number) => Promise<void>;
}

export interface StretchResult<O> {
  /** False when another worker holds the cursor: it was left alone. */
  taken: boolean;
  done: O[];
  /** Items that could not be settled (their data, their cost, an error while handling them), set aside with their reason (settle_set_aside). */
  setAside: number;
  /** Rows of the log the cursor moved past (settled or set aside). */
  handled: number;
  /** Whether more rows may be waiting: the stretch was ended by a bound, or by the step's time. */
  more: boolean;
}

/**
 * A stretch gets the step timeout (TALLY_STEP_TIMEOUT_SECONDS) for its statements, halved with
 * its parts, and four times that in all: past it the step commits the prefix it has handled.
 */
const stepTimeoutMs = () => env().TALLY_STEP_TIMEOUT_SECONDS * 1000;

export async function settleNextStretch<R extends LogPosition, I, O>(steps: StretchSteps<R, I, O>): Promise<StretchResult<O>> {
  const client = await pgPool().connect();
  let broken = false;
  try {
    await client.query(BEGIN);
    const cursor = await steps.takeCursor(client);
    const { rows, full } = cursor ? await steps.readStretch(client, cursor) : { rows: [], full: false };
    if (!cursor || rows.length === 0) {
      await client.query(ROLLBACK);
      return { taken: cursor !== undefined, done: [], setAside: 0, handled: 0, more: false };
    }
    const timeoutMs = stepTimeoutMs();
    const outcome = await isolateFailures(
      client,
      rows,
      (part) => steps.settle(client, part.map(steps.toItem)),
      (row, error) => steps.setAside(client, row, error),
      { timeoutMs, deadline: Date.now() + 4 * timeoutMs },
    );
    await steps.moveCursor(client, rows[outcome.handled - 1]!, outcome.handled);
    await client.query(COMMIT);
    return { taken: true, ...outcome, more: full || outcome.handled < rows.length };
  } catch (error) {
    await client.query(ROLLBACK).catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
