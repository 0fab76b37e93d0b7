// Hand-written SQL: the shipper, settled batches from Postgres's outbox (clickhouse_batches) into ClickHouse, each
// counted once however often it is sent (docs/decisions/0042-clickhouse-behind-the-store-seam.md).
//   1. A run takes waiting batches under a lease (committed at once, attempts counted), so two
//      shippers never send the same batch at the same time, and one killed mid-way leaves its
//      batches to the next once the lease ends.
//   2. A batch is sent as one insert whose deduplication token is its id: sent twice within the
//      tables' deduplication window (materialized views' targets included), it counts once.
//   3. A batch tried before is first looked up by its batch column, and only its rows ClickHouse
//      does not hold are sent: a shipper killed between the insert and the mark, longer ago than
//      the window remembers, still counts once.
//   4. A row ClickHouse refuses (its data) is found by halving the insert and set aside with the
//      reason (clickhouse_set_aside); the rest of the batch ships. A failure of ClickHouse itself
//      (unreachable, overloaded) ends the run and leaves the batch to the next.
//   5. The batch is marked shipped; Postgres retention keeps its rows' days until it is.
import { createHash } from "node:crypto";
import sql from "sql-template-tag";
import { env } from "@/env";
import { storableText } from "@/server/db/failures";
import { pgPool } from "@/server/db/pg-pool";
import type { ShipOutcome, ShippedTable, ShipperState } from "@/server/store/shipping";
import { insertTabSeparated, selectRows } from "./client";
import { batchRowsSql, columnsOf, rowKey, type ShippedRow } from "./postgres-rows.sql";

interface TakenBatch {
  id: string;
  kind: ShippedTable;
  rows: number;
  first_at: Date;
  last_at: Date;
  attempts: number;
}

// ClickHouse error codes that blame the rows sent (a value it cannot read or store, a constraint):
// such an insert is halved down to the row, which is set aside. Any other failure (unreachable,
// overloaded, a table missing) blames ClickHouse: the batch waits whole for the next run.
const ROW_FAULT_CODES = new Set([
  "6", // CANNOT_PARSE_TEXT
  "26", // CANNOT_PARSE_QUOTED_STRING
  "27", // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  "38", // CANNOT_PARSE_DATE
  "41", // CANNOT_PARSE_DATETIME
  "53", // TYPE_MISMATCH
  "69", // ARGUMENT_OUT_OF_BOUND
  "70", // CANNOT_CONVERT_TYPE
  "72", // CANNOT_PARSE_NUMBER
  "117", // INCORRECT_DATA
  "131", // TOO_LARGE_STRING_SIZE
  "321", // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  "349", // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  "395", // FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
  "469", // VIOLATED_CONSTRAINT
]);

function isRowsFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && ROW_FAULT_CODES.has(code);
}

const errorText = (error: unknown) => storableText(error instanceof Error ? error.message : String(error), 500);

/** The token of an insert: the batch's id, and which of its rows when not all of them. */
function tokenOf(batch: TakenBatch, keys: readonly string[], whole: boolean): string {
  if (whole) return `${batch.kind}:${batch.id}`;
  const digest = createHash("sha256").update(keys.join("\n")).digest("hex").slice(0, 32);
  return `${batch.kind}:${batch.id}:${digest}`;
}

async function takeBatches(limit: number, leaseSeconds: number): Promise<TakenBatch[]> {
  const { rows } = await pgPool().query<TakenBatch>(
    sql`UPDATE clickhouse_batches b SET leased_until = now() + make_interval(secs => ${leaseSeconds}), attempts = b.attempts + 1
         WHERE b.id IN (SELECT id FROM clickhouse_batches
                         WHERE shipped_at IS NULL AND (leased_until IS NULL OR leased_until < now())
                         ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING b.id::text AS id, b.kind, b.rows, b.first_at, b.last_at, b.attempts`,
  );
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** Keys of the batch's rows that ClickHouse already holds (looked up by its batch column). */
async function keysHeld(batch: TakenBatch): Promise<Set<string>> {
  const key = batch.kind === "ad_events" ? "toString(event_id)" : "concat(toString(conversion_id), ':', toString(item_position))";
  const rows = await selectRows<{ key: string }>(`SELECT ${key} AS key FROM ${batch.kind} WHERE batch_id = {batch:UInt64}`, { batch: batch.id });
  return new Set(rows.map((row) => row.key));
}

/**
 * Sends `rows` of `batch`; a rows' fault is halved down to the row, which is set aside. Returns
 * the rows sent and the rows set aside; throws on a failure of ClickHouse itself.
 */
async function sendIsolating(batch: TakenBatch, rows: ShippedRow[], whole: boolean): Promise<{ sent: number; setAside: number }> {
  const keys = rows.map((row) => rowKey(batch.kind, row));
  try {
    await insertTabSeparated(batch.kind, columnsOf(batch.kind), rows, tokenOf(batch, keys, whole));
    return { sent: rows.length, setAside: 0 };
  } catch (error) {
    if (!isRowsFault(error)) throw error;
    if (rows.length === 1) {
      await pgPool().query(
        sql`INSERT INTO clickhouse_set_aside (batch_id, row_key, kind, reason) VALUES (${batch.id}::bigint, ${keys[0]!}, ${batch.kind}, ${errorText(error)})
            ON CONFLICT (batch_id, row_key) DO NOTHING`,
      );
      return { sent: 0, setAside: 1 };
    }
    const half = Math.ceil(rows.length / 2);
    const first = await sendIsolating(batch, rows.slice(0, half), false);
    const second = await sendIsolating(batch, rows.slice(half), false);
    return { sent: first.sent + second.sent, setAside: first.setAside + second.setAside };
  }
}

async function shipOne(batch: TakenBatch): Promise<{ sent: number; setAside: number }> {
  const query = batchRowsSql(batch.kind, batch.id, batch.first_at, batch.last_at);
  const { rows } = await pgPool().query<ShippedRow>({ text: query.text, values: query.values, rowMode: "array" });
  let pending = rows;
  let whole = true;
  if (batch.attempts > 1) {
    // Tried before: send only what ClickHouse does not hold, and not what was set aside.
    const held = await keysHeld(batch);
    const { rows: asideRows } = await pgPool().query<{ row_key: string }>(sql`SELECT row_key FROM clickhouse_set_aside WHERE batch_id = ${batch.id}::bigint`);
    const aside = new Set(asideRows.map((row) => row.row_key));
    pending = rows.filter((row) => !held.has(rowKey(batch.kind, row)) && !aside.has(rowKey(batch.kind, row)));
    whole = pending.length === rows.length;
  }
  const outcome = pending.length > 0 ? await sendIsolating(batch, pending, whole) : { sent: 0, setAside: 0 };
  await pgPool().query(
    sql`UPDATE clickhouse_batches SET shipped_at = now(), leased_until = NULL, last_error = NULL,
               set_aside = (SELECT count(*) FROM clickhouse_set_aside WHERE batch_id = ${batch.id}::bigint)
         WHERE id = ${batch.id}::bigint`,
  );
  return outcome;
}

/**
 * Ships waiting batches, up to CLICKHOUSE_SHIP_BATCHES_PER_RUN of them (`limit`) and until
 * `deadline` (ms since the epoch) passes; a batch under way when it passes is finished.
 */
export async function shipBatches(options: { limit?: number; deadline?: number } = {}): Promise<ShipOutcome> {
  const settings = env();
  const batches = await takeBatches(options.limit ?? settings.CLICKHOUSE_SHIP_BATCHES_PER_RUN, settings.CLICKHOUSE_SHIP_LEASE_SECONDS);
  const outcome: ShipOutcome = { batches: 0, rows: 0, setAside: 0, error: null };
  const release = async (from: number) => {
    const ids = batches.slice(from).map((batch) => batch.id);
    if (ids.length > 0) {
      await pgPool().query(sql`UPDATE clickhouse_batches SET leased_until = NULL, last_error = ${outcome.error} WHERE id = ANY(${ids}::bigint[])`);
    }
  };
  for (const [index, batch] of batches.entries()) {
    if (options.deadline !== undefined && Date.now() > options.deadline) {
      await release(index);
      break;
    }
    try {
      const { sent, setAside } = await shipOne(batch);
      outcome.batches += 1;
      outcome.rows += sent;
      outcome.setAside += setAside;
    } catch (error) {
      outcome.error = errorText(error);
      await release(index);
      break;
    }
  }
  return outcome;
}

/** What the shipper has left to do, for /api/health and /api/metrics. */
export async function shipperState(): Promise<ShipperState> {
  const { rows } = await pgPool().query<{ waiting: number; lag: number; set_aside: number; last_error: string | null }>(
    sql`SELECT (SELECT count(*) FROM clickhouse_batches WHERE shipped_at IS NULL)::int AS waiting,
               coalesce(extract(epoch FROM now() - (SELECT min(created_at) FROM clickhouse_batches WHERE shipped_at IS NULL)), 0)::float8 AS lag,
               (SELECT count(*) FROM clickhouse_set_aside)::int AS set_aside,
               (SELECT last_error FROM clickhouse_batches WHERE shipped_at IS NULL AND last_error IS NOT NULL ORDER BY id DESC LIMIT 1) AS last_error`,
  );
  const row = rows[0]!;
  return { waiting: row.waiting, lagSeconds: row.lag, setAside: row.set_aside, lastError: row.last_error };
}

/**
 * The earliest time whose rows Postgres must keep for the shipper: the first partition-key time
 * of the oldest unshipped batch of `table`, or null when every batch of it has shipped.
 */
export async function unshippedSince(table: ShippedTable): Promise<Date | null> {
  const { rows } = await pgPool().query<{ first_at: Date | null }>(
    sql`SELECT min(first_at) AS first_at FROM clickhouse_batches WHERE shipped_at IS NULL AND kind = ${table}`,
  );
  return rows[0]?.first_at ?? null;
}

/** The earliest created_at of a settled row not yet shipped (see Shipping.oldestUnshippedRow). */
export async function oldestUnshippedRow(): Promise<Date | null> {
  const { rows } = await pgPool().query<{ at: Date | null }>(
    sql`SELECT min(coalesce(rows_created_from, first_at)) AS at FROM clickhouse_batches WHERE shipped_at IS NULL`,
  );
  return rows[0]?.at ?? null;
}

/**
 * Deletes shipped batches whose rows' partition keys all lie before `before` (retention has
 * dropped those days, or will), in chunks: the outbox stays as small as the days Postgres keeps.
 */
export async function forgetShipped(before: Date): Promise<number> {
  let forgotten = 0;
  for (;;) {
    const { rowCount } = await pgPool().query(
      sql`DELETE FROM clickhouse_batches WHERE id IN (
            SELECT id FROM clickhouse_batches WHERE shipped_at IS NOT NULL AND last_at < ${before} LIMIT 10000)`,
    );
    forgotten += rowCount ?? 0;
    if ((rowCount ?? 0) < 10_000) return forgotten;
  }
}
