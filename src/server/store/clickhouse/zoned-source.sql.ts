// Hand-written SQL: which rollup rows a ClickHouse report in a zone reads, the seam Postgres's
// zonedDays draws (store/postgres/report-zone.sql.ts; docs/reports.md, "Time zones"). A UTC read
// reads the UTC table as it always did. A read in zone Z reads Z's rows of zoned_report_rollups
// (or zoned_order_rollups) from the local date of Z's since on, and the UTC rows of the days
// before since (whole UTC days, which end exactly at since): each event counted once, before
// since in a UTC row, from it on in a Z row. Both come as one relation (UNION ALL) in the FROM of
// the read's one query, and the zone's since is read inside it, from report_zones' newest version.
// The read's range ({startDate}, {endDate}) bounds both sides, so each reads an index range.
import { UTC } from "@/server/core/time-zones";
import { currentSchema } from "./migrate.sql";
import { knownClickhouseFirstOwnDay } from "./report-zones.sql";
import { TWIN_COLUMNS, type ZonedTable } from "./zoned-rollups.sql";

const ZONED_OF: Record<"report_rollups" | "order_rollups", ZonedTable> = {
  report_rollups: "zoned_report_rollups",
  order_rollups: "zoned_order_rollups",
};

/** The zone's since, read in the statement (report_zones as this node names it: every node holds all of it). */
const since = () => `(SELECT argMax(since, version) FROM ${currentSchema().local("report_zones")} WHERE zone = {readZone:String})`;

/**
 * The rows of `table` (a UTC rollup table) that a read in `zone` from `startDate` sums, as a
 * relation for its FROM: the table itself in UTC; Z's rows alone when the range starts on or after
 * Z's first own day as this process last read it (report-zones.sql.ts: a copy at most seconds old,
 * right however stale, since a first own day only moves back), the UTC side then holding none of
 * its rows; else the seam above. Each table or subquery a ClickHouse query touches costs
 * milliseconds of its own, and the seam touches four. Needs the parameters readZone, startDate and
 * endDate.
 */
export function rollupSource(table: "report_rollups" | "order_rollups", zone: string, startDate: string): string {
  if (zone === UTC) return table;
  const zoned = ZONED_OF[table];
  const columns = TWIN_COLUMNS[zoned].join(", ");
  const days = "day BETWEEN {startDate:Date} AND {endDate:Date}";
  const firstOwnDay = knownClickhouseFirstOwnDay(zone);
  if (firstOwnDay !== null && firstOwnDay <= startDate) return `(SELECT ${columns} FROM ${zoned} WHERE zone = {readZone:String} AND ${days})`;
  return `(SELECT ${columns} FROM ${table} WHERE ${days} AND day < toDate(${since()})
            UNION ALL
           SELECT ${columns} FROM ${zoned}
            WHERE zone = {readZone:String} AND ${days} AND day >= toDate(formatDateTime(${since()}, '%F', {readZone:String})))`;
}
