import type pg from "pg";
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
