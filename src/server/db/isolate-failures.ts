// How every batch step of the pipeline (settling a stretch of a log, attributing a batch of orders)
// keeps one item from stopping the rest, whatever the item does: fails on its data, makes a
// statement run past its time, or makes Tally's own code throw (a RangeError, say). The batch runs
// inside a savepoint with a statement timeout sized to it; an item's failure (failures.ts) rolls
// the savepoint back and the halves run in order instead, down to the item alone, which is set
// aside with its reason. A failure that is not the items' (the database is down) is thrown, and
// the whole step is tried again later.
import type pg from "pg";
import { isTransientFailure } from "./failures";
import { RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT, SAVEPOINT } from "./isolate-failures.sql";
import { setLocalStatementTimeout } from "./transaction.sql";

export interface IsolateOptions {
  /** The statement timeout of an attempt over the whole batch; smaller parts get a share of it. */
  timeoutMs: number;
  /** Part of a batch is never given less than this (a single item's statements, under load). */
  minTimeoutMs?: number;
  /**
   * No attempt starts past this time (Date.now()) once an item is handled: the step then commits
   * what it has handled, a prefix of the batch in order, and the rest waits for the next step.
   */
  deadline?: number;
}

export interface Isolated<O> {
  /** What `work` returned, for every part that went through, in order. */
  done: O[];
  /** Items set aside (their own failure, with its reason, is `setAside`'s to record). */
  setAside: number;
  /** How many items, from the first, were settled or set aside: all of them unless the deadline came first. */
  handled: number;
}

export const MIN_PART_TIMEOUT_MS = 2_000;

/** The timeout of an attempt over `part` of `whole` items: its share of the batch's, never below the floor. */
export function partTimeoutMs(part: number, whole: number, timeoutMs: number, minTimeoutMs = MIN_PART_TIMEOUT_MS): number {
  return Math.max(Math.min(minTimeoutMs, timeoutMs), Math.round((timeoutMs * part) / Math.max(whole, 1)));
}

/**
 * Runs `work` over `items` on `client`, inside the caller's transaction, isolating the items that
 * fail (see the top of this file). A batch whose time runs out (a statement past its timeout,
 * whose share halves with the batch) is split like any other failure, so an item that is merely
 * costly is found in about twice the batch's timeout.
 */
export async function isolateFailures<I, O>(
  client: pg.PoolClient,
  items: readonly I[],
  work: (part: I[]) => Promise<O[]>,
  setAside: (item: I, error: unknown) => Promise<void>,
  options: IsolateOptions,
): Promise<Isolated<O>> {
  const result: Isolated<O> = { done: [], setAside: 0, handled: 0 };
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  // Returns false once the deadline stopped it: nothing after that point is attempted.
  const run = async (from: number, to: number): Promise<boolean> => {
    if (result.handled > 0 && Date.now() >= deadline) return false;
    const part = items.slice(from, to);
    await client.query(SAVEPOINT);
    try {
      await client.query(setLocalStatementTimeout(partTimeoutMs(part.length, items.length, options.timeoutMs, options.minTimeoutMs)));
      const done = await work(part);
      await client.query(RELEASE_SAVEPOINT);
      result.done.push(...done);
      result.handled = to;
      return true;
    } catch (error) {
      // A savepoint that cannot be rolled back means the connection or the transaction is gone.
      await client.query(ROLLBACK_TO_SAVEPOINT).catch(() => {
        throw error;
      });
      if (isTransientFailure(error)) throw error;
      if (part.length === 1) {
        await setAside(part[0]!, error);
        result.setAside += 1;
        result.handled = to;
        return true;
      }
    }
    const middle = from + Math.ceil((to - from) / 2);
    return (await run(from, middle)) && run(middle, to);
  };
  if (items.length > 0) await run(0, items.length);
  return result;
}
