// What the browser's actions stored, read straight from the e2e database.
import pg from "pg";

const E2E_PG_PORT = Number(process.env.E2E_PG_PORT ?? 15439);
/** The database of the server with ClickHouse as the store (playwright.config.ts). */
export const E2E_CLICKHOUSE_PG_PORT = Number(process.env.E2E_CLICKHOUSE_PG_PORT ?? 15440);

export const query = <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => queryAt<T>(E2E_PG_PORT, sql, params);

/** A query of the e2e database on `port`. */
export async function queryAt<T extends pg.QueryResultRow>(port: number, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: `postgresql://tally:tally@127.0.0.1:${port}/tally` });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export interface StoredEvent {
  kind: string;
  status: string;
  ad_id: string;
  placement_name: string;
}

export const eventsOfSession = (sessionId: string) =>
  query<StoredEvent>("SELECT kind::text, status::text, ad_id, placement_name FROM ad_events WHERE session_id = $1 ORDER BY created_at", [sessionId]);

/** Polls until `check` holds (beacons are asynchronous), or fails with the last value seen. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

/**
 * Waits until the server has settled every beacon and order it accepted (a 202 means it is in a
 * log; reports count it, and orders are stored, once it is settled, within a second or two).
 */
export async function settled(timeoutMs = 15_000): Promise<void> {
  const waiting = () =>
    query(`SELECT 1 FROM beacon_log l JOIN settle_cursors c USING (shard) WHERE (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
           UNION ALL SELECT 1 FROM conversion_log l JOIN conversion_cursor c ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq) LIMIT 1`);
  const rows = await eventually(waiting, (found) => found.length === 0, timeoutMs);
  if (rows.length > 0) throw new Error(`beacons were still waiting to be settled after ${timeoutMs / 1000} s`);
}
