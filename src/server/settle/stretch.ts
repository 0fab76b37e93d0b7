// One settle step, whatever the log: take its cursor (or leave it to the worker holding it), read
// the next stretch in commit-safe order, settle it item by item around the ones whose own data
// fails, and move the cursor, all in one transaction. A worker that dies mid-stretch (a crash,
// SIGKILL, a lost connection) leaves nothing behind: Postgres rolls its transaction back, the
// row lock goes with the connection, and the next worker settles the same stretch again.
import type pg from "pg";
import { pgPool } from "@/server/db/pg-pool";
import { isDataError } from "@/server/ingest/group-commit";

/**
 * Runs `work` over a stretch inside a savepoint of the caller's transaction; when it fails on the
 * stretch's own data (SQLSTATE class 22 or 23), runs it over the halves in order instead, until
 * the item that fails stands alone and is handed to `setAside`. The rest of the stretch goes
 * through all the same, so one bad item never holds a shard or the queue. Any other error
 * (the database's health) rolls the savepoint back and is thrown.
 */
export async function isolateFailures<I, O>(
  client: pg.PoolClient,
  stretch: I[],
  work: (items: I[]) => Promise<O[]>,
  setAside: (item: I, error: Error & { code?: string }) => Promise<void>,
): Promise<{ done: O[]; setAside: number }> {
  const result: { done: O[]; setAside: number } = { done: [], setAside: 0 };
  const run = async (items: I[]): Promise<void> => {
    await client.query("SAVEPOINT stretch");
    try {
      result.done.push(...(await work(items)));
      await client.query("RELEASE SAVEPOINT stretch");
      return;
    } catch (error) {
      await client.query("ROLLBACK TO SAVEPOINT stretch");
      if (!isDataError(error)) throw error;
      if (items.length === 1) {
        await setAside(items[0]!, error as Error & { code?: string });
        result.setAside += 1;
        return;
      }
    }
    const half = Math.ceil(items.length / 2);
    await run(items.slice(0, half));
    await run(items.slice(half));
  };
  await run(stretch);
  return result;
}

/** Records an item set aside, with its reason, so verification lists it and settling goes on. */
export async function recordSetAside(
  client: pg.PoolClient,
  item: { eventId: string; kind: "beacon" | "conversion"; shard: number | null; receivedAt: Date },
  error: Error & { code?: string },
): Promise<void> {
  await client.query({
    name: "settle-set-aside",
    text: `INSERT INTO settle_set_aside (event_id, kind, shard, received_at, reason, sqlstate) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (event_id) DO NOTHING`,
    values: [item.eventId, item.kind, item.shard, item.receivedAt, error.message, error.code ?? null],
  });
}

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
  readStretch: (client: pg.PoolClient, cursor: CursorPosition) => Promise<R[]>;
  toItem: (row: R) => I;
  settle: (client: pg.PoolClient, items: I[]) => Promise<O[]>;
  setAside: (client: pg.PoolClient, item: I, error: Error & { code?: string }) => Promise<void>;
  moveCursor: (client: pg.PoolClient, last: R, count: number) => Promise<void>;
}

export interface StretchResult<O> {
  /** False when another worker holds the cursor: it was left alone. */
  taken: boolean;
  done: O[];
  /** Items whose own data could not be settled, set aside with their reason (settle_set_aside). */
  setAside: number;
}

export async function settleNextStretch<R extends LogPosition, I, O>(steps: StretchSteps<R, I, O>): Promise<StretchResult<O>> {
  const client = await pgPool().connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const cursor = await steps.takeCursor(client);
    const rows = cursor ? await steps.readStretch(client, cursor) : [];
    if (!cursor || rows.length === 0) {
      await client.query("ROLLBACK");
      return { taken: cursor !== undefined, done: [], setAside: 0 };
    }
    const outcome = await isolateFailures(
      client,
      rows.map(steps.toItem),
      (items) => steps.settle(client, items),
      (item, error) => steps.setAside(client, item, error),
    );
    await steps.moveCursor(client, rows[rows.length - 1]!, rows.length);
    await client.query("COMMIT");
    return { taken: true, ...outcome };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
