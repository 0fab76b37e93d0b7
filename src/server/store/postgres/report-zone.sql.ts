// Which report table rows a report in a zone reads: the one fragment every Postgres report reader
// uses (docs/reports.md, "Time zones"). The writers add each batch once per zone in report_zones,
// on the event's local day in that zone, for events from the zone's `since` (a UTC midnight) on;
// so a report in zone Z reads Z's rows and, for the days before `since`, the UTC rows, whole UTC
// days that end exactly at `since`. Each event is counted once: before `since` in a UTC row, from
// it on in a Z row. Z's first local day may hold only the events from `since` on; the UTC day
// before `since` holds the rest, and both carry the same date when Z is west of UTC, so that
// date's figures are the two together.
import sql, { raw, type Sql } from "sql-template-tag";
import { expiringCopy } from "@/server/core/expiring-copy";
import { UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { firstOwnDayIn, type ReadableZone, type ZonedRange } from "@/server/store/report-query";

/**
 * The rows of `alias` (a report table with `zone` and `day`) that a report over `range` reads, as
 * one condition. Each side keeps `zone` and `day` bounds, so the (…, zone, day) indexes serve
 * both. The zone's start is read inside the statement, from the same snapshot as the rows: upkeep
 * moves `since` back in the transaction that adds the zone's earlier days, and a start read
 * beforehand could count those days twice. The scalar subquery is evaluated once per statement
 * (an InitPlan) and used as an index bound. Z's own rows need no lower bound: no row of Z is ever
 * before its start (late events before it go to UTC rows, and a backfill step keeps the rows it
 * builds under keys of its own until the transaction that moves the start).
 *
 * When the range starts on or after the zone's first own day as this process last read it
 * (readableReportZones, at most READABLE_ZONES_TTL_MS old), the UTC side can hold none of its
 * rows, and the condition is Z's rows alone: one index range, no subquery. That copy may be stale,
 * and it is safe to use because a zone's start only ever moves back (upkeep's backfill; a kept zone
 * is never dropped or restarted later), so a range that started on or after it then still does.
 * A detailed report names the fragment six times: with both sides it planned and ran a third
 * slower in São Paulo than in UTC (bench/results.md, "Time zones").
 */
export function zonedDays(alias: string, range: ZonedRange, now = Date.now()): Sql {
  const r = raw(alias);
  const days = sql`${r}.day BETWEEN ${range.startDate}::date AND ${range.endDate}::date`;
  if (readsOneZone(range, now)) return sql`(${r}.zone = ${range.zone} AND ${days})`;
  return sql`((${r}.zone = ${range.zone} AND ${days})
           OR (${r}.zone = 'UTC' AND ${days} AND ${r}.day < (SELECT (z.since AT TIME ZONE 'UTC')::date FROM report_zones z WHERE z.zone = ${range.zone})))`;
}

/**
 * Whether a report over `range` reads one zone's rows only (zonedDays' one index range): UTC's, or
 * a zone whose first own day, as this process last read it, is on or before the range's start.
 * Once true for a range it stays true (a start only moves back), so readers may shape the rest of
 * their statement on it (no date where two zones' rows meet).
 */
export function readsOneZone(range: ZonedRange, now = Date.now()): boolean {
  if (range.zone === UTC) return true;
  const firstOwnDay = knownFirstOwnDay(range.zone, now);
  return firstOwnDay !== null && firstOwnDay <= range.startDate;
}

// Every report request asks which zones can be read (to refuse another, and to name the first
// day of the zone's own in its answer). The list changes only when an account takes a new zone
// or upkeep moves a start back, so it is read at most once every few seconds per process. The
// rows a report reads depend on this copy only through a start it shows, which can only have moved
// back since (zonedDays).
const READABLE_ZONES_TTL_MS = 5_000;
const readable = expiringCopy(READABLE_ZONES_TTL_MS, () =>
  pgPool()
    .query<{ zone: string; first_own_day: string }>(
      sql`SELECT zone, (since AT TIME ZONE 'UTC')::date::text AS first_own_day FROM report_zones
           WHERE zone NOT IN (SELECT zone FROM unknown_report_zones) ORDER BY zone <> 'UTC', zone`,
    )
    .then(({ rows }) => rows.map((row): ReadableZone => ({ zone: row.zone, utcDaysBefore: row.zone === UTC ? null : row.first_own_day }))),
);

/** The first own day of `zone` in the current copy of report_zones, when there is one. */
function knownFirstOwnDay(zone: string, now: number): string | null {
  return firstOwnDayIn(readable.known(now), zone);
}

/** The zones kept in report_zones that Postgres knows (store/unknown-zones.sql.ts), UTC first, each with the first day that is its own. */
export function readableReportZones(now = Date.now()): Promise<ReadableZone[]> {
  return readable.get(now);
}

/** Forgets the copy of report_zones, so the next report reads it afresh (tests that change the zones). */
export function forgetReadableZones(): void {
  readable.forget();
}
