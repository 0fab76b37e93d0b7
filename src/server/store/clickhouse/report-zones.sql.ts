// Hand-written SQL: ClickHouse's copy of report_zones follows Postgres's, the list of kept zones
// (docs/decisions/0051). Postgres decides which zones are kept (an account's zone, under its cap);
// ClickHouse keeps its own `since` per zone, because its rows start when its views began counting
// the zone, not when Postgres's did. The shipper runs syncReportZones before each run, as one of
// the rollups' writers (rollup-writers.sql.ts), so no rebuild swaps months while a zone is added.
// A version row per change (ReplacingMergeTree(version)); every read takes a zone's newest.
import sql from "sql-template-tag";
import { DAY_MS } from "@/server/core/days";
import { expiringCopy } from "@/server/core/expiring-copy";
import { UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { firstOwnDayIn, type ReadableZone } from "@/server/store/report-query";
import { unknownReportZones } from "@/server/store/unknown-zones.sql";
import { runCommand, selectRows } from "./client";
import { HOURLY_TABLES } from "./hourly-recount.ch.sql";
import { currentSchema } from "./migrate.sql";
import { ZONED_TABLES } from "./zoned-rollups.sql";

// Every report request asks which zones can be read; the list changes only when an account takes
// a new zone or the backfill moves a since back, so it is read at most once every few seconds per
// process, as the Postgres store's is (and afresh after this process changes a zone). The rows a
// read sums depend on this copy only through a first own day it shows (zoned-source.sql.ts), which
// can only have moved back since: the backfill moves a since back, and a zone is dropped (its since
// moved past every event) only once Postgres no longer keeps it, which Postgres never stops doing.
const READABLE_ZONES_TTL_MS = 5_000;
const readableCopy = expiringCopy(READABLE_ZONES_TTL_MS, () => readReadableZones());

/** The first own day of `zone` in the current copy of the readable zones, when there is one. */
export function knownClickhouseFirstOwnDay(zone: string, now = Date.now()): string | null {
  return firstOwnDayIn(readableCopy.known(now), zone);
}

/** The since of a zone Postgres no longer keeps: past any event, so the views count nothing for it. */
export const DROPPED_SINCE_MS = Date.UTC(2299, 11, 31);

/** ClickHouse's report_zones as this node names it: on a cluster every node holds all of it (migration 7), so reads and writes go to the local table. */
export const zonesTable = (): string => currentSchema().local("report_zones");

export interface ClickhouseZone {
  zone: string;
  sinceMs: number;
  hoursSinceMs: number;
  version: string;
}

/** ClickHouse's report_zones, each zone at its newest version (dropped zones included). */
export async function clickhouseZones(): Promise<ClickhouseZone[]> {
  const rows = await selectRows<{ zone: string; since_ms: string; hours_since_ms: string; version: string }>(
    `SELECT zone, toUnixTimestamp64Milli(since) AS since_ms, toUnixTimestamp64Milli(hours_since) AS hours_since_ms, toString(version) AS version
       FROM ${zonesTable()} FINAL ORDER BY zone`,
  );
  return rows.map((row) => ({ zone: row.zone, sinceMs: Number(row.since_ms), hoursSinceMs: Number(row.hours_since_ms), version: row.version }));
}

/**
 * Postgres's report_zones: the zones kept, and where Postgres's own rows of each start (days and
 * hours). Zones Postgres's tz database no longer knows (unknown_report_zones) are left out: its
 * writers, budgets and account settings no longer agree on them, so ClickHouse neither adds,
 * reads, backfills nor checks them (syncReportZones does not drop them either).
 */
export async function postgresZoneStarts(): Promise<Map<string, { sinceMs: number; hoursSinceMs: number; addedAtMs: number }>> {
  const { rows } = await pgPool().query<{ zone: string; since: Date; hours_since: Date; added_at: Date }>(
    sql`SELECT zone, since, hours_since, added_at FROM report_zones WHERE zone NOT IN (SELECT zone FROM unknown_report_zones)`,
  );
  return new Map(rows.map((row) => [row.zone, { sinceMs: row.since.getTime(), hoursSinceMs: row.hours_since.getTime(), addedAtMs: row.added_at.getTime() }]));
}

/** Postgres's known kept zones (postgresZoneStarts), each with where Postgres's day rows start. */
export async function postgresZones(): Promise<Map<string, number>> {
  return new Map([...(await postgresZoneStarts())].map(([zone, starts]) => [zone, starts.sinceMs]));
}

export const asDateTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");

/**
 * A new version of a zone's row: `since` and `hours_since` as given, its version the time now in
 * microseconds or one past the zone's last, whichever is larger (clocks of two processes may differ).
 */
export async function putZone(zone: string, sinceMs: number, hoursSinceMs: number): Promise<void> {
  await runCommand(
    `INSERT INTO ${zonesTable()} (zone, since, hours_since, version)
     SELECT {zone:String}, {since:DateTime64(3, 'UTC')}, {hoursSince:DateTime64(3, 'UTC')},
            greatest(toUInt64(toUnixTimestamp64Micro(now64(6))), (SELECT max(version) + 1 FROM ${zonesTable()} WHERE zone = {zone:String}))`,
    { zone, since: asDateTime(sinceMs), hoursSince: asDateTime(hoursSinceMs) },
  );
  readableCopy.forget();
}

/** Whether ClickHouse holds any shipped event or order line at or after `moment`. */
async function shippedSince(moment: number): Promise<boolean> {
  const [row] = await selectRows<{ n: string }>(
    `SELECT (SELECT count() FROM (SELECT 1 FROM ad_events WHERE created_at >= {at:DateTime64(3, 'UTC')} LIMIT 1))
          + (SELECT count() FROM (SELECT 1 FROM attributions WHERE placed_at >= {at:DateTime64(3, 'UTC')} LIMIT 1)) AS n`,
    { at: asDateTime(moment) },
  );
  return Number(row?.n ?? 0) > 0;
}

/**
 * Where a zone new to ClickHouse starts: Postgres's since when nothing shipped is at or after it
 * (the views will count every event of the zone's from there), else the later of Postgres's since
 * and the next UTC midnight, so that no event already shipped belongs in the zone's rows (the
 * backfill then moves it back over the days the raw rows hold).
 */
async function newZoneSince(postgresSince: number, now: number): Promise<number> {
  if (!(await shippedSince(postgresSince))) return postgresSince;
  const nextMidnight = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return Math.max(postgresSince, nextMidnight);
}

/**
 * Brings ClickHouse's report_zones in step with Postgres's: a zone Postgres keeps and ClickHouse
 * does not (or dropped) is added (newZoneSince, its hours from the same moment); a zone Postgres
 * no longer keeps is dropped: its since and hours_since moved past any event and its day and
 * hourly rows deleted, so that if it is kept again it starts afresh in both grains and no day or
 * hour counts twice. Zones Postgres records unknown are left as they are. Returns the zones added and dropped.
 */
export async function syncReportZones(now: number = Date.now()): Promise<{ added: string[]; dropped: string[] }> {
  const [postgres, kept, unknown] = await Promise.all([postgresZones(), clickhouseZones(), unknownReportZones()]);
  // A kept zone Postgres's tz data no longer knows is still Postgres's: neither added nor dropped.
  const stillKept = new Set(unknown.map((z) => z.zone));
  const live = new Map(kept.filter((z) => z.sinceMs < DROPPED_SINCE_MS).map((z) => [z.zone, z]));
  const added: string[] = [];
  const dropped: string[] = [];
  for (const [zone, postgresSince] of postgres) {
    if (zone === UTC || live.has(zone)) continue;
    const since = await newZoneSince(postgresSince, now);
    await putZone(zone, since, since);
    added.push(zone);
  }
  for (const zone of live.keys()) {
    if (zone === UTC || postgres.has(zone) || stillKept.has(zone)) continue;
    await putZone(zone, DROPPED_SINCE_MS, DROPPED_SINCE_MS);
    const schema = currentSchema();
    for (const table of [...ZONED_TABLES, ...HOURLY_TABLES]) {
      await runCommand(`ALTER TABLE ${schema.local(table)}${schema.onCluster} DELETE WHERE zone = {zone:String} SETTINGS mutations_sync = 2`, { zone });
    }
    dropped.push(zone);
  }
  return { added, dropped };
}

async function readReadableZones(): Promise<ReadableZone[]> {
  const [postgres, kept] = await Promise.all([postgresZones(), clickhouseZones()]);
  const readable = kept.filter((z) => z.sinceMs < DROPPED_SINCE_MS && (z.zone === UTC || postgres.has(z.zone)));
  readable.sort((a, b) => (a.zone === UTC ? -1 : b.zone === UTC ? 1 : a.zone < b.zone ? -1 : 1));
  return readable.map((z) => ({ zone: z.zone, utcDaysBefore: z.zone === UTC ? null : new Date(z.sinceMs).toISOString().slice(0, 10) }));
}

/**
 * The zones the ClickHouse store reads exactly, UTC first: those ClickHouse keeps that Postgres
 * still lists, each with the first day that is its own (ClickHouse's since, a UTC midnight).
 */
export function clickhouseReadableZones(now = Date.now()): Promise<ReadableZone[]> {
  return readableCopy.get(now);
}

/** Forgets the copy of the readable zones, so the next report reads them afresh (tests that change the zones). */
export function forgetClickhouseReadableZones(): void {
  readableCopy.forget();
}
