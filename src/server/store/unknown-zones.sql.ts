// Hand-written SQL: kept zones that Postgres's tz database does not know. report_zones may hold a
// zone that a later Postgres release dropped or renamed (the account's setting checks the name
// against pg_timezone_names when it is chosen, not afterwards); every statement converting a time
// into it then fails, and every settle and attribution batch with it. So the zones are checked
// against pg_timezone_names when a process starts and whenever a writer fails that way; a zone
// found unknown is recorded in unknown_report_zones, which the writers leave out (ZONES_CTE), so
// UTC and every other zone go on; reports in it are refused (report-query.ts), /api/metrics and
// the overview show it, and it is logged once, by name (docs/operations.md).
import sql from "sql-template-tag";
import { logger } from "@/server/core/log";
import { isUnknownZoneError } from "@/server/db/failures";
import { pgPool } from "@/server/db/pg-pool";

export interface UnknownZone {
  zone: string;
  /** When Tally found that Postgres does not know it: its rows lack what was stored since. */
  foundAt: Date;
}

/**
 * Checks every kept zone against Postgres's tz database (pg_timezone_names, a read of the
 * server's zone files, so never per batch): records and logs, once, each zone newly found unknown;
 * returns every zone recorded unknown.
 */
export async function checkReportZones(): Promise<UnknownZone[]> {
  const { rows } = await pgPool().query<{ zone: string; found_at: Date; new: boolean }>(sql`
    WITH found AS (
      INSERT INTO unknown_report_zones (zone)
      SELECT zone FROM report_zones WHERE zone NOT IN (SELECT name FROM pg_timezone_names)
      ON CONFLICT (zone) DO NOTHING
      RETURNING zone, found_at
    )
    SELECT zone, found_at, true AS new FROM found
    UNION ALL
    SELECT zone, found_at, false FROM unknown_report_zones
     ORDER BY zone`);
  for (const row of rows.filter((r) => r.new))
    logger().error(
      { zone: row.zone },
      `time zone ${row.zone} is kept for reports but Postgres's tz database does not know it: its rows are no longer kept and its reports are refused; UTC and the other zones go on (docs/operations.md)`,
    );
  return rows.map((row) => ({ zone: row.zone, foundAt: row.found_at }));
}

/** The kept zones recorded unknown to Postgres, by name. */
export async function unknownReportZones(): Promise<UnknownZone[]> {
  const { rows } = await pgPool().query<{ zone: string; found_at: Date }>(sql`SELECT zone, found_at FROM unknown_report_zones ORDER BY zone`);
  return rows.map((row) => ({ zone: row.zone, foundAt: row.found_at }));
}

const holder = globalThis as unknown as { tallyZoneCheck?: Promise<unknown> };

/**
 * Runs `write` (a writer's statement); when it fails because Postgres does not know a kept zone,
 * starts a check of the zones (one at a time per process, on another connection, so the failed
 * transaction can end meanwhile) and rethrows: the batch is tried again later, unchanged
 * (failures.ts counts this failure as the database's), and by then the zone is left out.
 */
export async function withKnownZones<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUnknownZoneError(error))
      holder.tallyZoneCheck ??= checkReportZones()
        .catch((cause: unknown) => logger().error({ cause: (cause as Error).message }, "could not check the kept time zones"))
        .finally(() => {
          holder.tallyZoneCheck = undefined;
        });
    throw error;
  }
}
