// Hand-written SQL: upkeep's backfill of kept zones. A zone's report rows hold exactly the events
// and credited lines from its start (report_zones.since for the daily tables, hours_since for the
// hourly ones); a step moves one start back to the UTC midnight before it and adds the recount of
// the raw rows of that stretch to the zone's rows, with the recount the consistency check uses
// (verify-rollups.sql.ts), so the two cannot disagree. The writers wait only for two short
// moments, neither of which reads raw rows:
//   1. the step marks the stretch in the zone's row (backfill_since, backfill_hours_since), under
//      the row's lock, and takes a snapshot before it lets the lock go. The writers share-lock
//      every kept zone's row in their statements, so every batch committed before that moment is
//      in the snapshot, and every batch after it reads the mark and adds what it stores of the
//      stretch under the key 'backfill:<zone>' (rollup-tables.sql.ts, ZONES_CTE);
//   2. the step recounts the stretch in that snapshot, outside any lock, under 'recount:<zone>'
//      (keys no report reads), adds those rows to the zone's, then locks the zone's row, adds the
//      'backfill:' rows (what settled and was attributed meanwhile), moves the start and drops the
//      mark, and commits. Each batch is counted once: in the snapshot or after it.
import sql, { raw } from "sql-template-tag";
import { DAY_MS, dayStart, utcDay } from "@/server/core/days";
import { bulkPool, type DbConnection, pgPool } from "@/server/db/pg-pool";
import { retryOnConflict } from "@/server/db/retry";
import { inTransaction } from "@/server/db/transaction";
import { COMMIT, ROLLBACK, setLocalStatementTimeout } from "@/server/db/transaction.sql";
import type { ZoneBackfill, ZoneBehind, ZoneRowsGrain, ZoneStretch } from "@/server/store/rollup-checks";

import { rowCounting } from "./ad-row-counts.sql";
import { BACKFILL_KEY_PREFIX, isHourly, ORDER_MEASURES, REPORT_TABLES, type ReportTableSpec } from "./rollup-tables.sql";
import { firstDayWithRawRows, MEASURES, type OrdersGrain, ordersKey, publisherOrdersRecount, type RecountSpan, recountCtes } from "./verify-rollups.sql";

const START_COLUMN = { days: "since", hours: "hours_since" } as const satisfies Record<ZoneRowsGrain, string>;
/** Where a step marks the stretch it is recounting (rollup-tables.sql.ts, ZONES_CTE). */
const MARK_COLUMN = { days: "backfill_since", hours: "backfill_hours_since" } as const satisfies Record<ZoneRowsGrain, string>;

/**
 * The first UTC day a zone's start may move back to: the first day whose raw rows are all still
 * held (retention drops old days) and that has ad events at all (credited lines and converted
 * clicks are never earlier than their ad events); null when no ad event is held.
 */
async function firstRawDay(): Promise<string | null> {
  const { rows } = await pgPool().query<{ first: Date | null }>(sql`SELECT min(created_at) AS first FROM ad_events`);
  const first = rows[0]?.first;
  return first ? firstDayWithRawRows(utcDay(first)) : null;
}

/** The UTC midnight before a moment (the moment's own day's, unless it is a midnight). */
const midnightBefore = (moment: Date): Date => new Date((Math.ceil(moment.getTime() / DAY_MS) - 1) * DAY_MS);

async function behind(): Promise<ZoneBehind[]> {
  const first = await firstRawDay();
  const { rows } = await pgPool().query<{ zone: string; since: Date; hours_since: Date }>(
    sql`SELECT zone, since, hours_since FROM report_zones WHERE zone NOT IN (SELECT zone FROM unknown_report_zones) ORDER BY zone`,
  );
  const floor = first === null ? null : dayStart(first).getTime();
  const lacking = (start: Date) => (floor === null ? 0 : Math.max(0, Math.ceil((start.getTime() - floor) / DAY_MS)));
  return rows.flatMap(({ zone, since, hours_since }) => [
    { zone, grain: "days" as const, start: since, daysBehind: lacking(since) },
    { zone, grain: "hours" as const, start: hours_since, daysBehind: lacking(hours_since) },
  ]);
}

/** `zone` over the UTC moments [from, to), within one UTC day, as if its rows started at `from`, its rows keyed `key`. */
const stretchSpan = (key: string, zone: string, from: Date, to: Date): RecountSpan => ({
  zones: sql`zones AS (SELECT ${key}::text AS zone, ${zone}::text AS tz, ${from}::timestamptz AS since, 'infinity'::timestamptz AS until,
                              ${from}::timestamptz AS hours_since, 'infinity'::timestamptz AS hours_until,
                              ${from}::timestamptz AS from_at, ${to}::timestamptz AS to_at)`,
  rawFrom: sql`${from}::timestamptz`,
  rawTo: sql`${to}::timestamptz`,
});

// Table and column names come from REPORT_TABLES, MEASURES and ORDER_MEASURES, fixed lists.
/** One recounted row as JSON text, for each table of a grain: the cursor's query. */
const recountRows = (spec: ReportTableSpec, span: RecountSpan) =>
  sql`WITH ${recountCtes(spec, span)} SELECT row_to_json(x)::text AS j FROM (SELECT ${raw(`${spec.keys.join(", ")}, ${MEASURES.join(", ")}`)} FROM recounted) x`;
const recountOrders = (grain: OrdersGrain, span: RecountSpan) =>
  sql`WITH ${publisherOrdersRecount(grain, span)} SELECT row_to_json(recounted)::text AS j FROM recounted`;

/** Adds rows given as a JSON array of a table's rows to it, in key order, counting new daily_ad_totals rows as the writers do. */
function addRows(table: string, keys: readonly string[], measures: readonly string[], spec: ReportTableSpec | null, json: string) {
  const columns = raw([...keys, ...measures].join(", "));
  const { returning, countsCte } = spec ? rowCounting(spec) : { returning: "", countsCte: "" };
  return sql`
WITH chunk AS (SELECT * FROM json_populate_recordset(NULL::${raw(table)}, ${json}::json)), ${raw(table)} AS (
  INSERT INTO ${raw(table)} AS r (${columns})
  SELECT ${columns} FROM chunk ORDER BY ${raw(keys.join(", "))}
  ON CONFLICT (${raw(keys.join(", "))}) DO UPDATE SET ${raw(measures.map((m) => `${m} = r.${m} + EXCLUDED.${m}`).join(", "))}
  ${raw(returning)}
)${raw(countsCte)}
SELECT 1`;
}

/** Rows a step reads from its snapshot at a time, and writes in one short statement. */
const RECOUNT_CHUNK_ROWS = 5_000;

/**
 * Recounts the stretch in the snapshot of `recounter`'s transaction (REPEATABLE READ, READ ONLY:
 * it holds no transaction id, so settling, which reads the logs only up to the oldest transaction
 * id running, is not held back) through a cursor, and writes the rows a chunk at a time, each in
 * its own short statement on another connection, under the span's key.
 */
async function recountStretch(recounter: DbConnection, grain: ZoneRowsGrain, span: RecountSpan): Promise<void> {
  const { specs, orders } = tablesOf(grain);
  const parts = [
    ...specs.map((spec) => ({
      query: recountRows(spec, span),
      table: spec.table as string,
      keys: spec.keys as readonly string[],
      measures: MEASURES as readonly string[],
      spec,
    })),
    {
      query: recountOrders(orders, span),
      table: `${orders}_publisher_orders`,
      keys: ordersKey(orders),
      measures: ORDER_MEASURES as readonly string[],
      spec: null,
    },
  ];
  for (const part of parts) {
    const declared = sql`DECLARE zone_recount NO SCROLL CURSOR FOR ${part.query}`;
    await recounter.query(declared);
    for (;;) {
      const { rows } = await recounter.query<{ j: string }>(sql`FETCH ${raw(String(RECOUNT_CHUNK_ROWS))} FROM zone_recount`);
      if (rows.length === 0) break;
      await bulkPool().query(addRows(part.table, part.keys, part.measures, part.spec, `[${rows.map((row) => row.j).join(",")}]`));
    }
    await recounter.query(sql`CLOSE zone_recount`);
  }
}

/** The report tables of a grain, as the writers lock them: REPORT_TABLES' in order, then the distinct orders. */
const tablesOf = (grain: ZoneRowsGrain) => ({
  specs: REPORT_TABLES.filter((spec) => isHourly(spec) === (grain === "hours")),
  orders: grain === "hours" ? ("hourly" as const) : ("daily" as const),
});

/**
 * Moves the rows keyed `from` (a 'recount:' or 'backfill:' key) to the zone `to`'s rows, adding
 * each figure to a row of the same key there, in the writers' order (tables, then keys); a
 * daily_ad_totals row new to the zone is counted in daily_ad_row_counts as the writers count theirs.
 */
async function moveRows(client: DbConnection, grain: ZoneRowsGrain, from: string, to: string): Promise<void> {
  const { specs, orders } = tablesOf(grain);
  const tables = [
    ...specs.map((spec) => ({ spec, table: spec.table, keys: spec.keys.filter((k) => k !== "zone"), measures: MEASURES })),
    { spec: null, table: `${orders}_publisher_orders`, keys: ordersKey(orders).filter((k) => k !== "zone"), measures: ORDER_MEASURES },
  ];
  for (const { spec, table, keys, measures } of tables) {
    const columns = raw([...keys, ...measures].join(", "));
    const { returning, countsCte } = spec ? rowCounting(spec) : { returning: "", countsCte: "" };
    await client.query(sql`
WITH moved AS (DELETE FROM ${raw(table)} WHERE zone = ${from} RETURNING ${columns}), ${raw(table)} AS (
  INSERT INTO ${raw(table)} AS r (zone, ${columns})
  SELECT ${to}, ${columns} FROM moved ORDER BY ${raw(keys.join(", "))}
  ON CONFLICT (zone, ${raw(keys.join(", "))}) DO UPDATE SET ${raw(measures.map((m) => `${m} = r.${m} + EXCLUDED.${m}`).join(", "))}
  ${raw(returning)}
)${raw(countsCte)}
SELECT 1`);
  }
  if (grain === "days") await client.query(sql`DELETE FROM daily_ad_row_counts WHERE zone = ${from}`);
}

/** Drops the rows kept under a 'recount:' or 'backfill:' key (a step that stopped half-way). */
async function dropRows(client: DbConnection, grain: ZoneRowsGrain, key: string): Promise<void> {
  const { specs, orders } = tablesOf(grain);
  for (const table of [...specs.map((spec) => spec.table), `${orders}_publisher_orders`])
    await client.query(sql`DELETE FROM ${raw(table)} WHERE zone = ${key}`);
  if (grain === "days") await client.query(sql`DELETE FROM daily_ad_row_counts WHERE zone = ${key}`);
}

const keysOf = (zone: string) => ({ recount: `recount:${zone}`, backfill: `${BACKFILL_KEY_PREFIX}${zone}` });

/**
 * Undoes a step that stopped half-way (its process died, a statement timed out): the zone's mark
 * dropped, with the rows kept under its two keys, in one transaction; the start stays where it
 * was, so nothing is lost (the stretch's events are still in the UTC rows) and the next step
 * begins afresh.
 */
async function abandon(zone: string, grain: ZoneRowsGrain): Promise<void> {
  const keys = keysOf(zone);
  await inTransaction(
    async (client) => {
      await client.query(sql`SELECT 1 FROM report_zones WHERE zone = ${zone} FOR UPDATE`);
      await dropRows(client, grain, keys.recount);
      await dropRows(client, grain, keys.backfill);
      await client.query(sql`UPDATE report_zones SET ${raw(MARK_COLUMN[grain])} = NULL WHERE zone = ${zone}`);
    },
    { pool: bulkPool() },
  );
}

export interface ZoneStepHooks {
  /** Run while the step recounts, after its snapshot (the tests settle and attribute then). */
  whileRecounting?: () => Promise<void>;
}

async function step(zone: string, grain: ZoneRowsGrain, statementTimeoutMs: number, hooks: ZoneStepHooks = {}): Promise<ZoneStretch | null> {
  const first = await firstRawDay();
  if (first === null) return null;
  const recounter = await bulkPool().connect();
  try {
    // One step per zone and grain at a time, whichever process runs upkeep.
    const { rows } = await recounter.query<{ mine: boolean }>(
      sql`SELECT pg_try_advisory_lock(hashtextextended(${`zone-backfill:${grain}:${zone}`}, 0)) AS mine`,
    );
    if (!rows[0]?.mine) return null;
    try {
      return await stepHoldingTurn(recounter, zone, grain, dayStart(first), statementTimeoutMs, hooks);
    } finally {
      await recounter.query(sql`SELECT pg_advisory_unlock(hashtextextended(${`zone-backfill:${grain}:${zone}`}, 0))`);
    }
  } finally {
    recounter.release();
  }
}

/** How often a step's last transaction is tried when Postgres ends it as a deadlock with a writer. */
const MOVE_ATTEMPTS = 5;

async function stepHoldingTurn(
  recounter: DbConnection,
  zone: string,
  grain: ZoneRowsGrain,
  firstHeld: Date,
  statementTimeoutMs: number,
  hooks: ZoneStepHooks,
): Promise<ZoneStretch | null> {
  const { rows } = await recounter.query<{ marked: Date | null }>(sql`SELECT ${raw(MARK_COLUMN[grain])} AS marked FROM report_zones WHERE zone = ${zone}`);
  if (rows.length === 0) return null;
  await dropRows(recounter, grain, keysOf(zone).recount);
  if (rows[0]!.marked !== null) await abandon(zone, grain);
  try {
    const stretch = await markAndSnapshot(recounter, zone, grain, firstHeld, statementTimeoutMs);
    if (stretch === null) return null;
    await Promise.all([recountStretch(recounter, grain, stretchSpan(keysOf(zone).recount, zone, stretch.from, stretch.to)), hooks.whileRecounting?.()]);
    await recounter.query(COMMIT);
    // The recount's rows are moved before the zone's row is locked, so the writers do not wait for
    // them; a writer adding to the zone's first local day meanwhile holds the zone's row shared and
    // wants a row the move holds, and Postgres ends one side as a deadlock. A writer's batch is
    // retried; so is this transaction, which changes nothing until it commits.
    await retryOnConflict(
      () =>
        inTransaction(
          async (client) => {
            await client.query(setLocalStatementTimeout(statementTimeoutMs));
            await moveRows(client, grain, keysOf(zone).recount, zone);
            // From here to the commit the writers wait: only what they stored of the stretch meanwhile is moved.
            await client.query(sql`SELECT 1 FROM report_zones WHERE zone = ${zone} FOR UPDATE`);
            await moveRows(client, grain, keysOf(zone).backfill, zone);
            await client.query(
              sql`UPDATE report_zones SET ${raw(START_COLUMN[grain])} = ${stretch.from}, ${raw(MARK_COLUMN[grain])} = NULL WHERE zone = ${zone}`,
            );
          },
          { pool: bulkPool() },
        ),
      MOVE_ATTEMPTS,
    );
    return stretch;
  } catch (error) {
    // Whatever stopped the step, the snapshot's transaction ends and the mark goes.
    await recounter.query(ROLLBACK).catch(() => {});
    await abandon(zone, grain);
    throw error;
  }
}

/**
 * The first moment: the zone's row locked (the writers wait), the stretch marked, and a
 * REPEATABLE READ transaction begun on `recounter` whose snapshot is taken before the mark
 * commits, so it holds exactly the batches that did not read the mark. Null when the zone has no
 * held day left to take.
 */
async function markAndSnapshot(
  recounter: DbConnection,
  zone: string,
  grain: ZoneRowsGrain,
  firstHeld: Date,
  statementTimeoutMs: number,
): Promise<ZoneStretch | null> {
  return inTransaction(
    async (client) => {
      await client.query(setLocalStatementTimeout(statementTimeoutMs));
      const { rows } = await client.query<{ start: Date }>(sql`SELECT ${raw(START_COLUMN[grain])} AS start FROM report_zones WHERE zone = ${zone} FOR UPDATE`);
      const to = rows[0]?.start;
      if (!to) return null;
      const from = midnightBefore(to);
      if (from < firstHeld) return null;
      await client.query(sql`UPDATE report_zones SET ${raw(MARK_COLUMN[grain])} = ${from} WHERE zone = ${zone}`);
      await recounter.query(sql`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`);
      await recounter.query(setLocalStatementTimeout(statementTimeoutMs));
      await recounter.query(sql`SELECT 1 FROM report_zones LIMIT 1`);
      return { zone, grain, from, to };
    },
    { pool: bulkPool() },
  );
}

export const zoneBackfill: ZoneBackfill = { behind, step };
