// The backfill (`npm run clickhouse:backfill`): rows Postgres settled before ClickHouse was the
// store (no outbox batch, so the shipper never sends them) copied into ClickHouse as batch 0,
// where the materialized views count them into the report rollups as they arrive.
//   - Day by day of each table's partition key, each day read in key order and sent in chunks
//     bounded in rows and bytes, each chunk with a deduplication token made from its rows' keys:
//     sent again (a retry, a re-run) it counts once.
//   - A day ClickHouse already holds all of (as many batch-0 rows as Postgres has unbatched rows)
//     is skipped, so a re-run after a crash goes on where it stopped; a day it holds part of (the
//     run stopped mid-day) has the rows ClickHouse holds left out, whatever its tokens remember.
//   - Every chunk is inserted as one of the rollups' writers (rollup-writers.sql.ts): a rollup
//     rebuild under way stops the backfill, which is run again once it is done.
// What cannot be backfilled: days whose raw rows Postgres's retention has already dropped. Their
// figures live on only in Postgres's rollup tables, which hold counts, not the orders' ids that
// ClickHouse's distinct-order states need, so ClickHouse's reports show nothing for them. Rows
// ClickHouse's own TTL would drop at once (older than CLICKHOUSE_TTL_DAYS) are not sent either: a
// re-run would find them missing and count them again.
import { createHash } from "node:crypto";
import { addDays, DAY_MS, dayStart, startOfUtcDay } from "@/server/core/days";
import { cursorBatches } from "@/server/db/cursor";
import { bulkPool } from "@/server/db/pg-pool";
import { rawRowsKeptFrom as postgresRawRowsKeptFrom } from "@/server/store/postgres/verify-rollups.sql";
import type { ShippedTable } from "@/server/store/shipping";
import { backfilledDays, backfilledKeys } from "./backfill.ch.sql";
import { EXPIRY_COLUMN, firstBatchedSql, unbatchedDaysSql } from "./backfill.sql";
import { insertTabSeparated, selectRows } from "./client";
import { columnsOf, rowKey, type ShippedRow, unbatchedRowsSql } from "./postgres-rows.sql";
import { clickhouseRollups } from "./rollup-checks";
import { asOnlyBackfill, asRollupWriter } from "./rollup-writers.sql";

export const BACKFILL_CHUNK_ROWS = 50_000;
export const BACKFILL_CHUNK_BYTES = 32 * 1024 * 1024;
const FETCH_ROWS = 5_000;
const TABLES: readonly ShippedTable[] = ["ad_events", "attributions"];

export interface BackfillDay {
  table: ShippedTable;
  /** The UTC day of the rows' partition key (created_at; the order's receipt for attributions). */
  day: string;
  /** Rows Postgres holds for the day without an outbox batch (those ClickHouse's TTL keeps). */
  postgresRows: number;
  /** Of those, how many ClickHouse held before this run. */
  heldBefore: number;
  /** Rows sent by this run, and in how many inserts. */
  sent: number;
  chunks: number;
}

export interface BackfillOptions {
  /** First and last day (UTC, inclusive); by default every day up to the first outbox batch's. */
  from?: string;
  to?: string;
  chunkRows?: number;
  chunkBytes?: number;
  /** Told of each day once it is done (or skipped). */
  onDay?: (day: BackfillDay) => void;
}

export interface BackfillOutcome {
  days: BackfillDay[];
  /** Postgres's raw rows before these days are gone (retention): those days cannot be backfilled. */
  postgresKeptFrom: { adEvents: string | null; orders: string | null };
  /** ClickHouse's TTL drops raw rows before these days: rows older are not sent. */
  clickhouseKeptFrom: { adEvents: string | null; orders: string | null };
}

const family = (table: ShippedTable) => (table === "ad_events" ? "adEvents" : "orders");

/** Where the table's days end by default: the day after the one the outbox's batches start on (ClickHouse took over then), or tomorrow. */
async function defaultEnd(table: ShippedTable): Promise<Date> {
  const { rows } = await bulkPool().query<{ first_at: Date | null }>(firstBatchedSql(table));
  const start = rows[0]?.first_at ?? new Date();
  return new Date(startOfUtcDay(start).getTime() + 2 * DAY_MS);
}

const tokenOf = (table: ShippedTable, day: string, keys: readonly string[]) =>
  `backfill:${table}:${day}:${createHash("sha256").update(keys.join("\n")).digest("hex").slice(0, 32)}`;

async function sendChunk(table: ShippedTable, day: string, rows: ShippedRow[]): Promise<void> {
  const token = tokenOf(
    table,
    day,
    rows.map((row) => rowKey(table, row)),
  );
  const sent = await asRollupWriter(() => insertTabSeparated(table, columnsOf(table), rows, token));
  if (sent === "rebuilding") throw new Error("the report rollups are being rebuilt: run the backfill again once the rebuild is done");
}

/** Sends the day's unbatched rows that ClickHouse does not hold (`held`) and keeps (expiry from `keptFrom`), in chunks. */
async function copyDay(
  table: ShippedTable,
  day: string,
  held: ReadonlySet<string>,
  keptFrom: Date,
  limits: { rows: number; bytes: number },
): Promise<{ sent: number; chunks: number }> {
  const expiry = columnsOf(table).indexOf(EXPIRY_COLUMN[table]);
  // The rows' times are UTC text as postgres-rows.sql.ts writes them (YYYY-MM-DD HH:MM:SS.mmm): compared as text.
  const keptFromText = keptFrom.toISOString().replace("T", " ").slice(0, 23);
  let chunk: ShippedRow[] = [];
  let bytes = 0;
  let sent = 0;
  let chunks = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    await sendChunk(table, day, chunk);
    sent += chunk.length;
    chunks += 1;
    chunk = [];
    bytes = 0;
  };
  const rows = cursorBatches<ShippedRow>(unbatchedRowsSql(table, dayStart(day), dayStart(addDays(day, 1))), { batch: FETCH_ROWS, rowMode: "array" });
  for await (const batch of rows) {
    for (const row of batch) {
      if (row[expiry]! < keptFromText || held.has(rowKey(table, row))) continue;
      chunk.push(row);
      bytes += row.reduce((sum, value) => sum + (value?.length ?? 2) + 1, 0);
      if (chunk.length >= limits.rows || bytes >= limits.bytes) await flush();
    }
  }
  await flush();
  return { sent, chunks };
}

/**
 * Copies the rows settled before ClickHouse was the store into it, day by day; see the top of this
 * file. One backfill at a time, on any machine: a second one started meanwhile stops at once.
 */
export async function backfillClickhouse(options: BackfillOptions = {}): Promise<BackfillOutcome> {
  const outcome = await asOnlyBackfill(() => backfillEveryDay(options));
  if (outcome === "busy") throw new Error("another backfill is running: this one did nothing; run it again once that one is done");
  return outcome;
}

async function backfillEveryDay(options: BackfillOptions): Promise<BackfillOutcome> {
  const limits = { rows: options.chunkRows ?? BACKFILL_CHUNK_ROWS, bytes: options.chunkBytes ?? BACKFILL_CHUNK_BYTES };
  const clickhouseKeptFrom = await clickhouseRollups.rawRowsKeptFrom();
  const days: BackfillDay[] = [];
  for (const table of TABLES) {
    const from = options.from ? dayStart(options.from) : new Date(0);
    const to = options.to ? dayStart(addDays(options.to, 1)) : await defaultEnd(table);
    const kept = clickhouseKeptFrom[family(table)];
    const keptFrom = kept ? dayStart(kept) : new Date(0);
    const { rows: inPostgres } = await bulkPool().query<{ day: string; rows: number }>(unbatchedDaysSql(table, from, to, keptFrom));
    const range = { from: from.getTime(), to: to.getTime(), keptFrom: keptFrom.getTime() };
    const inClickhouse = new Map((await selectRows<{ day: string; n: string }>(backfilledDays(table), range)).map((row) => [row.day, Number(row.n)] as const));
    for (const { day, rows } of inPostgres) {
      const heldBefore = inClickhouse.get(day) ?? 0;
      let copied = { sent: 0, chunks: 0 };
      if (heldBefore !== rows) {
        const dayRange = { from: dayStart(day).getTime(), to: dayStart(addDays(day, 1)).getTime() };
        const held = heldBefore === 0 ? new Set<string>() : new Set((await selectRows<{ key: string }>(backfilledKeys(table), dayRange)).map((row) => row.key));
        copied = await copyDay(table, day, held, keptFrom, limits);
      }
      const done = { table, day, postgresRows: rows, heldBefore, ...copied };
      days.push(done);
      options.onDay?.(done);
    }
  }
  return { days, postgresKeptFrom: await postgresRawRowsKeptFrom(), clickhouseKeptFrom };
}
