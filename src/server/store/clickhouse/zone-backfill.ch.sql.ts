// Hand-written SQL: the ClickHouse store's backfill of kept zones (RollupChecks.zoneBackfill, run
// by upkeep as the Postgres store's is: upkeep/zone-backfill.ts). A zone new to ClickHouse may start
// later than Postgres's since (report-zones.sql.ts: the next UTC midnight, when events at or after
// Postgres's since were already shipped); each step moves ClickHouse's since back one UTC day,
// toward Postgres's, over the days ClickHouse's raw rows still hold (its TTL), adding that day's
// count to the zone's rows with the views' own queries (zonedRollupQuery, windowed).
// A step runs as the rollups' only writer (asRollupRebuilder): no shipped batch lands while it
// counts, so none of the day's rows is counted by both the step and a view, or by neither. Its
// inserts carry a token made of the zone, when Postgres added it (report_zones.added_at: a zone
// dropped and kept again is another, whose steps must not be taken for the old one's), the day and
// the view, so a step cut short after its inserts and run again adds nothing twice (within
// CLICKHOUSE_DEDUPLICATION_WINDOW inserts); the since moves only once they are all in. Between the inserts and the move (milliseconds), a read
// of the zone's first local day may count the day's events in both its UTC and its zone rows.
// The hours grain moves hours_since (UTC's too: migration 8 started every zone's hourly rows when
// it ran) back the same way, toward Postgres's hours_since, each step from hours_since to the UTC
// midnight before it, with migration 8's views' query (hourlyRecount) and tokens of its own.
import { DAY_MS } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { UTC } from "@/server/core/time-zones";
import type { RollupChecks, ZoneBehind, ZoneRowsGrain, ZoneStretch } from "@/server/store/rollup-checks";
import { runCommand } from "./client";
import { HOURLY_VIEWS, hourlyInsertColumns, hourlyRecount } from "./hourly-recount.ch.sql";
import { asDateTime, clickhouseZones, DROPPED_SINCE_MS, postgresZoneStarts, putZone, zonesTable } from "./report-zones.sql";
import { asRollupRebuilder } from "./rollup-writers.sql";
import { insertColumns, keptZones, ZONED_VIEWS, zonedRollupQuery } from "./zoned-rollups.sql";

/** A zone's name as it may stand in a deduplication token: IANA names are letters, digits, '/', '_', '-' and '+'. */
function tokenSafe(zone: string): string {
  if (!/^[A-Za-z0-9/_+-]+$/.test(zone)) throw new TallyError("bad_request", `not a kept zone's name: ${zone}`);
  return zone;
}

interface Track {
  zone: string;
  sinceMs: number;
  hoursSinceMs: number;
  /** The start of the grain's rows in ClickHouse now. */
  startMs: number;
  /** How far back it may go: Postgres's start of the grain, and no earlier than the first held UTC day. */
  targetMs: number;
  /** When Postgres added the zone: part of every insert's token. */
  addedAtMs: number;
}

/**
 * Each live zone Postgres keeps (and knows) with its start and target in `grain`. Days: UTC keeps
 * its own tables and has nothing to move. Hours: UTC too.
 */
async function targets(grain: ZoneRowsGrain, firstHeldDay: () => Promise<string | null>): Promise<Track[]> {
  const [postgres, kept, held] = await Promise.all([postgresZoneStarts(), clickhouseZones(), firstHeldDay()]);
  const heldFrom = held === null ? Number.NEGATIVE_INFINITY : Date.parse(`${held}T00:00:00Z`);
  return kept.flatMap((z) => {
    const starts = postgres.get(z.zone);
    if ((grain === "days" && z.zone === UTC) || z.sinceMs >= DROPPED_SINCE_MS || starts === undefined) return [];
    const [startMs, postgresStart] = grain === "days" ? [z.sinceMs, starts.sinceMs] : [z.hoursSinceMs, starts.hoursSinceMs];
    return [
      { zone: z.zone, sinceMs: z.sinceMs, hoursSinceMs: z.hoursSinceMs, startMs, targetMs: Math.max(postgresStart, heldFrom), addedAtMs: starts.addedAtMs },
    ];
  });
}

/** Where a step from `startMs` goes: the UTC midnight before it, or the target if that is later. */
const nextStart = (startMs: number, targetMs: number) => Math.max((Math.ceil(startMs / DAY_MS) - 1) * DAY_MS, targetMs);

/** How many steps lie between a start and its target (a part of a UTC day counting as one). */
function stepsBehind(startMs: number, targetMs: number): number {
  let steps = 0;
  for (let at = startMs; at > targetMs; at = nextStart(at, targetMs)) steps += 1;
  return steps;
}

/** Adds the raw rows of [fromMs, track.startMs) to the zone's rows of `grain`, each insert with a token of its own. */
async function insertStretch(grain: ZoneRowsGrain, track: Track, fromMs: number, statementTimeoutMs: number): Promise<void> {
  const from = asDateTime(fromMs);
  const zoneKey = `${tokenSafe(track.zone)}:${track.addedAtMs}`;
  const seconds = Math.max(1, Math.ceil(statementTimeoutMs / 1000));
  const params = { zone: track.zone, windowFrom: from, windowTo: asDateTime(track.startMs) };
  const settings = (token: string) => `SETTINGS insert_deduplication_token = '${token}', max_execution_time = ${seconds}, distributed_foreground_insert = 1`;
  if (grain === "days") {
    for (const view of ZONED_VIEWS) {
      await runCommand(
        `INSERT INTO ${view.target} (${insertColumns(view).join(", ")})
         ${zonedRollupQuery(view, view.source, keptZones(zonesTable()), true)}
         ${settings(`zone-backfill:${zoneKey}:${from}:${view.name}`)}`,
        params,
      );
    }
    return;
  }
  for (const view of HOURLY_VIEWS) {
    await runCommand(
      `INSERT INTO ${view.target} (${hourlyInsertColumns(view).join(", ")})
       ${hourlyRecount(view)}
       ${settings(`zone-backfill-hours:${zoneKey}:${from}:${view.name}`)}`,
      params,
    );
  }
}

/** The zone backfill of the ClickHouse store; `firstHeldDay` says from which UTC day its raw rows are all held (null: all). */
export function clickhouseZoneBackfill(firstHeldDay: () => Promise<string | null>): RollupChecks["zoneBackfill"] {
  return {
    behind: async (): Promise<ZoneBehind[]> => {
      const behind: ZoneBehind[] = [];
      for (const grain of ["days", "hours"] as const) {
        for (const z of await targets(grain, firstHeldDay))
          behind.push({ zone: z.zone, grain, start: new Date(z.startMs), daysBehind: stepsBehind(z.startMs, z.targetMs) });
      }
      return behind;
    },
    step: async (zone, grain, statementTimeoutMs): Promise<ZoneStretch | null> =>
      asRollupRebuilder(async () => {
        const track = (await targets(grain, firstHeldDay)).find((z) => z.zone === zone);
        if (!track || track.startMs <= track.targetMs) return null;
        const fromMs = nextStart(track.startMs, track.targetMs);
        await insertStretch(grain, track, fromMs, statementTimeoutMs);
        // The other grain's start is carried over as it is.
        if (grain === "days") await putZone(zone, fromMs, track.hoursSinceMs);
        else await putZone(zone, track.sinceMs, fromMs);
        return { zone, grain, from: new Date(fromMs), to: new Date(track.startMs) };
      }),
  };
}
