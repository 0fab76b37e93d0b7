// Zones kept in ClickHouse's copy of report_zones, for tests of its hourly rollups: a new version
// row of a zone, written directly (in Tally the rows follow Postgres's report_zones). Each row's
// version is above every earlier one of its zone, as a real new version's is.
import { runCommand, selectRows } from "@/server/store/clickhouse/client";

export interface ClickhouseZone {
  zone: string;
  since: string;
  hoursSince: string;
}

/** A new version of `zone`'s row: its days from `since`, its hours from `hoursSince` (ISO moments; since defaults to hoursSince). */
export async function keepClickhouseZone(zone: string, hoursSince: string | Date, since: string | Date = hoursSince): Promise<void> {
  await runCommand(
    `INSERT INTO report_zones (zone, since, hours_since, version)
     SELECT {zone:String}, parseDateTime64BestEffort({since:String}, 3, 'UTC'), parseDateTime64BestEffort({hoursSince:String}, 3, 'UTC'),
            greatest(toUInt64(toUnixTimestamp64Micro(now64(6))), (SELECT max(version) + 1 FROM report_zones WHERE zone = {zone:String}))`,
    { zone, since: new Date(since).toISOString(), hoursSince: new Date(hoursSince).toISOString() },
  );
}

/** Every version row of report_zones, oldest first per zone: what a test wants to see of it. */
export async function clickhouseZoneRows(): Promise<(ClickhouseZone & { version: string })[]> {
  const rows = await selectRows<{ zone: string; since: string; hours_since: string; version: string }>(
    "SELECT zone, since, hours_since, toString(version) AS version FROM report_zones ORDER BY zone, version",
  );
  return rows.map((row) => ({
    zone: row.zone,
    since: new Date(row.since).toISOString(),
    hoursSince: new Date(row.hours_since).toISOString(),
    version: row.version,
  }));
}

/** Each zone's latest row (FINAL), as the views and reads see it. */
export async function clickhouseKeptZones(): Promise<ClickhouseZone[]> {
  const rows = await selectRows<{ zone: string; since: string; hours_since: string }>("SELECT zone, since, hours_since FROM report_zones FINAL ORDER BY zone");
  return rows.map((row) => ({ zone: row.zone, since: new Date(row.since).toISOString(), hoursSince: new Date(row.hours_since).toISOString() }));
}
