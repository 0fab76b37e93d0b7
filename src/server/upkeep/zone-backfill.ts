// Upkeep's backfill of kept zones: a zone added to report_zones (an account's new time zone) holds
// its own local days only from its start, and reports in it read the UTC rows of the days before.
// Each run moves each zone's start (and every zone's start of hourly rows, UTC's too) back one UTC
// day at a time over the days whose raw rows are still held, adding their recount to the zone's
// rows (store().rollups.zoneBackfill, one transaction per zone-day), so those days read as local
// days too. Bounded per run by TALLY_ZONE_BACKFILL_DAYS_PER_RUN zone-days and
// TALLY_ZONE_BACKFILL_SECONDS, each statement by TALLY_ZONE_BACKFILL_STATEMENT_TIMEOUT_SECONDS; a
// zone-day that fails is logged and left to the next run, and the other zones go on.
import { env } from "@/env";
import { store } from "@/server/store";
import type { ZoneRowsGrain, ZoneStretch } from "@/server/store/rollup-checks";

export interface ZoneBackfillLimits {
  /** Zone-days moved at most in one run. */
  days: number;
  /** No zone-day is started once the run has taken this long. */
  budgetMs: number;
  /** Each statement of a zone-day. */
  statementTimeoutMs: number;
}

export const zoneBackfillLimits = (): ZoneBackfillLimits => ({
  days: env().TALLY_ZONE_BACKFILL_DAYS_PER_RUN,
  budgetMs: env().TALLY_ZONE_BACKFILL_SECONDS * 1000,
  statementTimeoutMs: env().TALLY_ZONE_BACKFILL_STATEMENT_TIMEOUT_SECONDS * 1000,
});

export interface ZoneBackfillResult {
  /** The stretches added, each zone's in the order its start moved. */
  moved: ZoneStretch[];
  /** Zone-days that failed this run (rolled back: the zone's start did not move), left to the next. */
  failed: { zone: string; grain: ZoneRowsGrain; error: string }[];
}

/**
 * Moves the kept zones' starts back, one zone-day in turn per zone and grain (so that no zone
 * waits for another's whole history), until none lacks a held day or a limit is reached.
 */
export async function backfillZones(limits: ZoneBackfillLimits = zoneBackfillLimits(), clock: () => number = Date.now): Promise<ZoneBackfillResult> {
  const started = clock();
  const result: ZoneBackfillResult = { moved: [], failed: [] };
  let pending = (await store().rollups.zoneBackfill.behind()).filter((b) => b.daysBehind > 0);
  while (pending.length > 0) {
    const still: typeof pending = [];
    for (const track of pending) {
      if (result.moved.length >= limits.days || clock() - started >= limits.budgetMs) return result;
      try {
        const stretch = await store().rollups.zoneBackfill.step(track.zone, track.grain, limits.statementTimeoutMs);
        if (stretch) {
          result.moved.push(stretch);
          still.push(track);
        }
      } catch (error) {
        result.failed.push({ zone: track.zone, grain: track.grain, error: error instanceof Error ? error.message : String(error) });
      }
    }
    pending = still;
  }
  return result;
}
