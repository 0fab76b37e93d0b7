// Hand-written SQL: upkeep's backfill of kept zones. A zone's report rows hold exactly the events
// and credited lines from its start (report_zones.since for the daily tables, hours_since for the
// hourly ones); a step moves one start back to the UTC midnight before it and adds the recount of
// the raw rows of that stretch to the zone's rows, with the recount the consistency check uses
// (verify-rollups.sql.ts), so the two cannot disagree. The step locks the zone's row of
// report_zones FOR UPDATE before it reads: the writers share-lock every row in their statements,
// so a batch either was written before (and, its time before the old start, added nothing to the
// zone: the recount counts it) or waits and reads the new start (and adds itself).
import sql, { raw } from "sql-template-tag";
import { DAY_MS, dayStart, utcDay } from "@/server/core/days";
import { bulkPool, type DbConnection, pgPool } from "@/server/db/pg-pool";
import { inTransaction } from "@/server/db/transaction";
import { setLocalStatementTimeout } from "@/server/db/transaction.sql";
import type { ZoneBackfill, ZoneBehind, ZoneRowsGrain, ZoneStretch } from "@/server/store/rollup-checks";

import { rowCounting } from "./ad-row-counts.sql";
import { isHourly, ORDER_MEASURES, REPORT_TABLES, type ReportTableSpec } from "./rollup-tables.sql";
import { firstDayWithRawRows, MEASURES, type OrdersGrain, ordersKey, publisherOrdersRecount, type RecountSpan, recountCtes } from "./verify-rollups.sql";

const START_COLUMN = { days: "since", hours: "hours_since" } as const satisfies Record<ZoneRowsGrain, string>;

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
  const { rows } = await pgPool().query<{ zone: string; since: Date; hours_since: Date }>(sql`SELECT zone, since, hours_since FROM report_zones ORDER BY zone`);
  const floor = first === null ? null : dayStart(first).getTime();
  const lacking = (start: Date) => (floor === null ? 0 : Math.max(0, Math.ceil((start.getTime() - floor) / DAY_MS)));
  return rows.flatMap(({ zone, since, hours_since }) => [
    { zone, grain: "days" as const, start: since, daysBehind: lacking(since) },
    { zone, grain: "hours" as const, start: hours_since, daysBehind: lacking(hours_since) },
  ]);
}

/** One zone over the UTC moments [from, to), within one UTC day, as if its rows started at `from`. */
const stretchSpan = (zone: string, from: Date, to: Date): RecountSpan => ({
  zones: sql`zones AS (SELECT ${zone}::text AS zone, ${from}::timestamptz AS since, ${from}::timestamptz AS hours_since,
                              ${from}::timestamptz AS from_at, ${to}::timestamptz AS to_at)`,
  rawFrom: sql`${from}::timestamptz`,
  rawTo: sql`${to}::timestamptz`,
});

// Table and column names come from REPORT_TABLES, MEASURES and ORDER_MEASURES, fixed lists.
// Rows are added in key order, as the writers add theirs.
function addRecount(spec: ReportTableSpec, span: RecountSpan) {
  const keys = spec.keys.join(", ");
  const columns = raw(`${keys}, ${MEASURES.join(", ")}`);
  const { returning, countsCte } = rowCounting(spec);
  return sql`
WITH ${recountCtes(spec, span)}, ${raw(spec.table)} AS (
  INSERT INTO ${raw(spec.table)} AS r (${columns})
  SELECT ${columns} FROM recounted ORDER BY ${raw(keys)}
  ON CONFLICT (${raw(keys)}) DO UPDATE SET ${raw(MEASURES.map((m) => `${m} = r.${m} + EXCLUDED.${m}`).join(", "))}
  ${raw(returning)}
)${raw(countsCte)}
SELECT 1`;
}

function addOrdersRecount(grain: OrdersGrain, span: RecountSpan) {
  const key = ordersKey(grain).join(", ");
  return sql`
WITH ${publisherOrdersRecount(grain, span)}
INSERT INTO ${raw(`${grain}_publisher_orders`)} AS r (${raw(key)}, ${raw(ORDER_MEASURES.join(", "))})
SELECT * FROM recounted ORDER BY ${raw(key)}
ON CONFLICT (${raw(key)}) DO UPDATE SET ${raw(ORDER_MEASURES.map((m) => `${m} = r.${m} + EXCLUDED.${m}`).join(", "))}`;
}

async function addStretch(client: DbConnection, grain: ZoneRowsGrain, span: RecountSpan): Promise<void> {
  for (const spec of REPORT_TABLES) if (isHourly(spec) === (grain === "hours")) await client.query(addRecount(spec, span));
  await client.query(addOrdersRecount(grain === "hours" ? "hourly" : "daily", span));
}

async function step(zone: string, grain: ZoneRowsGrain, statementTimeoutMs: number): Promise<ZoneStretch | null> {
  const first = await firstRawDay();
  if (first === null) return null;
  const column = raw(START_COLUMN[grain]);
  return inTransaction(
    async (client) => {
      await client.query(setLocalStatementTimeout(statementTimeoutMs));
      const { rows } = await client.query<{ start: Date }>(sql`SELECT ${column} AS start FROM report_zones WHERE zone = ${zone} FOR UPDATE`);
      const to = rows[0]?.start;
      if (!to) return null;
      const from = midnightBefore(to);
      if (from < dayStart(first)) return null;
      await addStretch(client, grain, stretchSpan(zone, from, to));
      await client.query(sql`UPDATE report_zones SET ${column} = ${from} WHERE zone = ${zone}`);
      return { zone, grain, from, to };
    },
    { pool: bulkPool() },
  );
}

export const zoneBackfill: ZoneBackfill = { behind, step };
