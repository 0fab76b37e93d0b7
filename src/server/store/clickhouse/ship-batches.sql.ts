// Hand-written SQL: the shipper, settled batches from Postgres's outbox (clickhouse_batches) into ClickHouse, each
// counted once however often it is sent (docs/decisions/0042-clickhouse-behind-the-store-seam.md).
//   1. A run takes waiting batches under a lease (committed at once, attempts counted), so two
//      shippers never send the same batch at the same time, and one killed mid-way leaves its
//      batches to the next once the lease ends.
//   2. The waiting batches of one kind in a span of ids go as one insert whose deduplication token
//      names them: sent twice within the tables' deduplication window (materialized views'
//      targets included), they count once. The span, not the run, draws the group, so a run
//      that repeats a failed insert repeats its group and token (unless the batches waiting in
//      the span changed in between; then 3 alone guards, as past the window).
//   3. A batch tried before is first looked up by its batch column, and only its rows ClickHouse
//      does not hold are sent (alone): a shipper killed between the insert and the mark, longer
//      ago than the window remembers, still counts once.
//   4. A row ClickHouse refuses (its data) is found by halving the insert and set aside with the
//      reason (clickhouse_set_aside); the rest of its batch and group ships. A failure of ClickHouse itself
//      (unreachable, overloaded) ends the run and leaves the batch to the next.
//   5. The batch is marked shipped; Postgres retention keeps its rows' days until it is.
import { createHash } from "node:crypto";
import sql from "sql-template-tag";
import { env } from "@/env";
import { withCopyOut } from "@/server/db/copy-out";
import { storableText } from "@/server/db/failures";
import { pgPool } from "@/server/db/pg-pool";
import type { ShipOutcome, ShippedTable, ShipperState } from "@/server/store/shipping";
import { insertTabSeparated, insertTabSeparatedText, selectRows } from "./client";
import { batchOf, batchRowsCopySql, batchRowsSql, columnsOf, rowKey, type ShippedRow } from "./postgres-rows.sql";

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

/**
 * Batch ids whose waiting batches of one kind go in one insert: fewer, larger inserts cost
 * ClickHouse far less than one per batch (each insert has a fixed cost of its own, and makes
 * parts to merge), and a span of ids, not whatever a run took, decides the group, so a retry
 * regroups its batches as the insert it repeats did, with the same token.
 */
const GROUP_SPAN = 32n;

/** Batches sent in one insert, of one kind. */
interface Shipment {
  kind: ShippedTable;
  batches: TakenBatch[];
  /** Keys of rows not to send (ClickHouse holds them, or they were set aside), or null for none. */
  skip: Set<string> | null;
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

/** The token of an insert: its batches' ids, and which of their rows when not all of them. */
function tokenOf(shipment: Shipment, keys: readonly string[], whole: boolean): string {
  const ids = shipment.batches.map((batch) => batch.id);
  const batches = ids.length === 1 ? ids[0]! : `${ids[0]}-${ids.at(-1)}:${digest(ids.join(","))}`;
  const token = `${shipment.kind}:${batches}`;
  return whole ? token : `${token}:${digest(keys.join("\n"))}`;
}

/**
 * Takes up to `limit` waiting batches under a lease; with `gatherSeconds` > 0, none until the
 * oldest waiting batch has waited that long or a span's worth of batches wait.
 */
async function takeBatches(limit: number, leaseSeconds: number, gatherSeconds: number): Promise<TakenBatch[]> {
  const SPAN = Number(GROUP_SPAN);
  const { rows } = await pgPool().query<TakenBatch>(
    sql`UPDATE clickhouse_batches b SET leased_until = now() + make_interval(secs => ${leaseSeconds}), attempts = b.attempts + 1
         WHERE b.id IN (SELECT id FROM clickhouse_batches
                         WHERE shipped_at IS NULL AND (leased_until IS NULL OR leased_until < now())
                           AND (${gatherSeconds}::float8 <= 0 OR (SELECT min(created_at) <= now() - make_interval(secs => ${gatherSeconds}::float8) OR count(*) >= ${SPAN}
                                                                   FROM (SELECT created_at FROM clickhouse_batches
                                                                          WHERE shipped_at IS NULL AND (leased_until IS NULL OR leased_until < now())
                                                                          ORDER BY id LIMIT ${SPAN}) AS takeable))
                         ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING b.id::text AS id, b.kind, b.rows, b.first_at, b.last_at, b.attempts`,
  );
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** Keys of the batch's rows that ClickHouse already holds (looked up by its batch column), or that were set aside. */
async function keysLeftOut(batch: TakenBatch): Promise<Set<string>> {
  const key = batch.kind === "ad_events" ? "toString(event_id)" : "concat(toString(conversion_id), ':', toString(item_position))";
  const rows = await selectRows<{ key: string }>(`SELECT ${key} AS key FROM ${batch.kind} WHERE batch_id = {batch:UInt64}`, { batch: batch.id });
  const { rows: aside } = await pgPool().query<{ row_key: string }>(sql`SELECT row_key FROM clickhouse_set_aside WHERE batch_id = ${batch.id}::bigint`);
  return new Set([...rows.map((row) => row.key), ...aside.map((row) => row.row_key)]);
}

/**
 * The inserts of a run's batches, in id order: a batch tried before of which ClickHouse holds
 * rows (or rows were set aside) alone, without those rows; the others grouped by kind and span of
 * ids, the tried apart from the new, so a group sent again is the group first sent.
 */
async function planShipments(batches: readonly TakenBatch[]): Promise<Shipment[]> {
  const shipments: Shipment[] = [];
  const groups = new Map<string, Shipment>();
  for (const batch of batches) {
    const tried = batch.attempts > 1;
    if (tried) {
      const skip = await keysLeftOut(batch);
      if (skip.size > 0) {
        shipments.push({ kind: batch.kind, batches: [batch], skip });
        continue;
      }
    }
    const key = `${batch.kind}:${BigInt(batch.id) / GROUP_SPAN}:${tried}`;
    let group = groups.get(key);
    if (!group) {
      group = { kind: batch.kind, batches: [], skip: null };
      groups.set(key, group);
      shipments.push(group);
    }
    group.batches.push(batch);
  }
  return shipments;
}

/**
 * Sends `rows` of `shipment`; a rows' fault is halved down to the row, which is set aside (under
 * its own batch). Returns the rows sent and the rows set aside; throws on a failure of ClickHouse itself.
 */
async function sendIsolating(shipment: Shipment, rows: ShippedRow[], whole: boolean): Promise<{ sent: number; setAside: number }> {
  const keys = rows.map((row) => rowKey(shipment.kind, row));
  try {
    await insertTabSeparated(shipment.kind, columnsOf(shipment.kind), rows, tokenOf(shipment, keys, whole));
    return { sent: rows.length, setAside: 0 };
  } catch (error) {
    if (!isRowsFault(error)) throw error;
    return isolateRefused(shipment, rows, error);
  }
}

/** `rows`, refused together for `error`: the row set aside, or each half sent on its own. */
async function isolateRefused(shipment: Shipment, rows: ShippedRow[], error: unknown): Promise<{ sent: number; setAside: number }> {
  if (rows.length === 1) {
    await pgPool().query(
      sql`INSERT INTO clickhouse_set_aside (batch_id, row_key, kind, reason)
          VALUES (${batchOf(rows[0]!)}::bigint, ${rowKey(shipment.kind, rows[0]!)}, ${shipment.kind}, ${errorText(error)})
          ON CONFLICT (batch_id, row_key) DO NOTHING`,
    );
    return { sent: 0, setAside: 1 };
  }
  const half = Math.ceil(rows.length / 2);
  const first = await sendIsolating(shipment, rows.slice(0, half), false);
  const second = await sendIsolating(shipment, rows.slice(half), false);
  return { sent: first.sent + second.sent, setAside: first.setAside + second.setAside };
}

const lineCount = (text: Buffer) => {
  let lines = 0;
  for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) lines++;
  return lines;
};

async function ship(shipment: Shipment): Promise<{ sent: number; setAside: number }> {
  const { kind, batches, skip } = shipment;
  const ids = batches.map((batch) => batch.id);
  const firstAt = new Date(Math.min(...batches.map((batch) => batch.first_at.getTime())));
  const lastAt = new Date(Math.max(...batches.map((batch) => batch.last_at.getTime())));
  const readRows = async () => {
    const query = batchRowsSql(kind, ids, firstAt, lastAt);
    return (await pgPool().query<ShippedRow>({ text: query.text, values: query.values, rowMode: "array" })).rows;
  };
  let outcome = { sent: 0, setAside: 0 };
  if (skip === null) {
    // Every row: Postgres's text handed on as it comes; read as rows only to find a refused one.
    const refused = await withCopyOut(batchRowsCopySql(kind, ids, firstAt, lastAt), async (text) => {
      try {
        await insertTabSeparatedText(kind, columnsOf(kind), text, tokenOf(shipment, [], true));
        outcome = { sent: lineCount(text), setAside: 0 };
        return null;
      } catch (error) {
        if (!isRowsFault(error)) throw error;
        return { error };
      }
    });
    if (refused) outcome = await isolateRefused(shipment, await readRows(), refused.error);
  } else {
    const rows = await readRows();
    const pending = rows.filter((row) => !skip.has(rowKey(kind, row)));
    if (pending.length > 0) outcome = await sendIsolating(shipment, pending, pending.length === rows.length);
  }
  await pgPool().query(
    sql`UPDATE clickhouse_batches b SET shipped_at = now(), leased_until = NULL, last_error = NULL,
               set_aside = (SELECT count(*) FROM clickhouse_set_aside s WHERE s.batch_id = b.id)
         WHERE b.id = ANY(${ids}::bigint[])`,
  );
  return outcome;
}

/**
 * Ships waiting batches, up to CLICKHOUSE_SHIP_BATCHES_PER_RUN of them (`limit`) and until
 * `deadline` (ms since the epoch) passes; an insert under way when it passes is finished. With
 * `gatherSeconds`, nothing until the oldest has waited that long or a span's worth wait.
 */
export async function shipBatches(options: { limit?: number; deadline?: number; gatherSeconds?: number } = {}): Promise<ShipOutcome> {
  const settings = env();
  const limit = options.limit ?? settings.CLICKHOUSE_SHIP_BATCHES_PER_RUN;
  const batches = await takeBatches(limit, settings.CLICKHOUSE_SHIP_LEASE_SECONDS, options.gatherSeconds ?? 0);
  const outcome: ShipOutcome = { batches: 0, rows: 0, setAside: 0, error: null };
  const shipped = new Set<string>();
  const release = async () => {
    const ids = batches.filter((batch) => !shipped.has(batch.id)).map((batch) => batch.id);
    if (ids.length > 0) {
      await pgPool().query(sql`UPDATE clickhouse_batches SET leased_until = NULL, last_error = ${outcome.error} WHERE id = ANY(${ids}::bigint[])`);
    }
  };
  try {
    for (const shipment of await planShipments(batches)) {
      if (options.deadline !== undefined && Date.now() > options.deadline) break;
      const { sent, setAside } = await ship(shipment);
      for (const batch of shipment.batches) shipped.add(batch.id);
      outcome.batches += shipment.batches.length;
      outcome.rows += sent;
      outcome.setAside += setAside;
    }
  } catch (error) {
    outcome.error = errorText(error);
  }
  await release();
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
