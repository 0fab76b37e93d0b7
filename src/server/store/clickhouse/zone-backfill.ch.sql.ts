// Hand-written SQL: the ClickHouse store's backfill of kept zones (RollupChecks.zoneBackfill, run
// by upkeep as the Postgres store's is: upkeep/zone-backfill.ts). A zone new to ClickHouse may start
// later than Postgres's since (report-zones.sql.ts: the next UTC midnight, when events at or after
// Postgres's since were already shipped); each step moves ClickHouse's since back one UTC day,
// toward Postgres's, over the days ClickHouse's raw rows still hold (its TTL), adding that day's
// count to the zone's rows with the views' own queries (zonedRollupQuery, windowed).
// A step runs as the rollups' only writer (asRollupRebuilder): no shipped batch lands while it
// counts, so none of the day's rows is counted by both the step and a view, or by neither. Its
// inserts carry a token made of the zone, the day and the view, so a step cut short after its
// inserts and run again adds nothing twice (within CLICKHOUSE_DEDUPLICATION_WINDOW inserts); the
// since moves only once they are all in. Between the inserts and the move (milliseconds), a read
// of the zone's first local day may count the day's events in both its UTC and its zone rows.
import { DAY_MS } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { UTC } from "@/server/core/time-zones";
import type { RollupChecks, ZoneBehind, ZoneStretch } from "@/server/store/rollup-checks";
import { runCommand } from "./client";
import { asDateTime, clickhouseZones, DROPPED_SINCE_MS, postgresZones, putZone, zonesTable } from "./report-zones.sql";
import { asRollupRebuilder } from "./rollup-writers.sql";
import { insertColumns, keptZones, ZONED_VIEWS, zonedRollupQuery } from "./zoned-rollups.sql";

/** A zone's name as it may stand in a deduplication token: IANA names are letters, digits, '/', '_', '-' and '+'. */
function tokenSafe(zone: string): string {
  if (!/^[A-Za-z0-9/_+-]+$/.test(zone)) throw new TallyError("bad_request", `not a kept zone's name: ${zone}`);
  return zone;
}

/** How far back each live zone may go: Postgres's since, and no earlier than the first UTC day whose raw rows ClickHouse holds whole. */
async function targets(firstHeldDay: () => Promise<string | null>): Promise<{ zone: string; sinceMs: number; hoursSinceMs: number; targetMs: number }[]> {
  const [postgres, kept, held] = await Promise.all([postgresZones(), clickhouseZones(), firstHeldDay()]);
  const heldFrom = held === null ? Number.NEGATIVE_INFINITY : Date.parse(`${held}T00:00:00Z`);
  return kept.flatMap((z) => {
    const postgresSince = postgres.get(z.zone);
    if (z.zone === UTC || z.sinceMs >= DROPPED_SINCE_MS || postgresSince === undefined) return [];
    return [{ zone: z.zone, sinceMs: z.sinceMs, hoursSinceMs: z.hoursSinceMs, targetMs: Math.max(postgresSince, heldFrom) }];
  });
}

/** The zone backfill of the ClickHouse store; `firstHeldDay` says from which UTC day its raw rows are all held (null: all). */
export function clickhouseZoneBackfill(firstHeldDay: () => Promise<string | null>): RollupChecks["zoneBackfill"] {
  return {
    behind: async (): Promise<ZoneBehind[]> =>
      (await targets(firstHeldDay)).map((z) => ({
        zone: z.zone,
        grain: "days",
        start: new Date(z.sinceMs),
        daysBehind: Math.max(0, Math.ceil((z.sinceMs - z.targetMs) / DAY_MS)),
      })),
    step: async (zone, grain, statementTimeoutMs): Promise<ZoneStretch | null> => {
      // The hourly rows are the hours report's (its own backfill).
      if (grain !== "days") return null;
      return asRollupRebuilder(async () => {
        const track = (await targets(firstHeldDay)).find((z) => z.zone === zone);
        if (!track) return null;
        const fromMs = Math.max(track.sinceMs - DAY_MS, track.targetMs);
        if (fromMs >= track.sinceMs) return null;
        const from = asDateTime(fromMs);
        const seconds = Math.max(1, Math.ceil(statementTimeoutMs / 1000));
        for (const view of ZONED_VIEWS) {
          const token = `zone-backfill:${tokenSafe(zone)}:${from}:${view.name}`;
          await runCommand(
            `INSERT INTO ${view.target} (${insertColumns(view).join(", ")})
             ${zonedRollupQuery(view, view.source, keptZones(zonesTable()), true)}
             SETTINGS insert_deduplication_token = '${token}', max_execution_time = ${seconds}, distributed_foreground_insert = 1`,
            { zone, windowFrom: from, windowTo: asDateTime(track.sinceMs) },
          );
        }
        await putZone(zone, fromMs, track.hoursSinceMs);
        return { zone, grain, from: new Date(fromMs), to: new Date(track.sinceMs) };
      });
    },
  };
}
