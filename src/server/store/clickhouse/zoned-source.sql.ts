// Hand-written SQL: which rollup rows a ClickHouse report in a zone reads, the seam Postgres's
// zonedDays draws (store/postgres/report-zone.sql.ts; docs/reports.md, "Time zones"). A UTC read
// reads the UTC table as it always did. A read in zone Z reads Z's rows of zoned_report_rollups
// (or zoned_order_rollups) from the local date of Z's since on, and the UTC rows of the days
// before since (whole UTC days, which end exactly at since): each event counted once, before
// since in a UTC row, from it on in a Z row. Both come as one relation (UNION ALL) in the FROM of
// the read's one query, and the zone's since is read inside it, from report_zones' newest version.
// The read's range ({startDate}, {endDate}) bounds both sides, so each reads an index range. A
// range wholly in Z's own days reads the zoned table itself, so that its projections serve it.
// Distinct orders are read from the order keys where they hold every day the read reaches, else
// from the states (order-keys.sql.ts), decided once per read as well.
import { UTC } from "@/server/core/time-zones";
import { selectRows } from "./client";
import { currentSchema } from "./migrate.sql";
import { knownClickhouseFirstOwnDay } from "./report-zones.sql";
import { TWIN_COLUMNS, type UtcRollupTable, type ZonedTable } from "./zoned-rollups.sql";

const ZONED_OF: Record<UtcRollupTable, ZonedTable> = {
  report_rollups: "zoned_report_rollups",
  order_rollups: "zoned_order_rollups",
  order_keys: "zoned_order_keys",
};

/** The two forms the rollups keep distinct orders in. */
export type OrdersForm = "states" | "keys";

let keysSince: Promise<string> | null = null;

/**
 * The first UTC day the order keys hold whole (order_keys_start), read once a process: it is set
 * by migration 11 and never moves. A read of no earlier day reads the keys.
 */
export function orderKeysSince(): Promise<string> {
  // No row (not yet migrated): no day is held, and every read takes the states.
  keysSince ??= selectRows<{ since: string }>(
    `SELECT if(count() = 0, '2299-12-31', toString(argMax(since, version))) AS since FROM ${currentSchema().local("order_keys_start")}`,
  )
    .then(([row]) => row!.since)
    .catch((error: unknown) => {
      keysSince = null;
      throw error;
    });
  return keysSince;
}

/** Forgets the day read, for tests that set it. */
export function forgetOrderKeysSince(): void {
  keysSince = null;
}

/**
 * Which form a read of local days from `startDate` in any zone reads: the keys when every moment
 * of its range is on or after their first day. A local day starts at most 14 hours before the
 * UTC day of the same date, so a day after the keys' first has no moment before it.
 */
export async function ordersFormFrom(startDate: string, utc: boolean): Promise<OrdersForm> {
  const first = await orderKeysSince();
  return (utc ? startDate >= first : startDate > first) ? "keys" : "states";
}

/** The zone's since, read in the statement (report_zones as this node names it: every node holds all of it). */
const since = () => `(SELECT argMax(since, version) FROM ${currentSchema().local("report_zones")} WHERE zone = {readZone:String})`;

/**
 * Which rows of the rollups a read in `zone` from `startDate` sums, decided once for both tables:
 * UTC reads the UTC tables as they are; a range starting on or after Z's first own day as this
 * process last read it (report-zones.sql.ts: a copy at most seconds old, right however stale, since
 * a first own day only moves back) reads Z's rows of the zoned tables alone, the table itself
 * with `zone` in the read's conditions, so that ClickHouse may answer it from the tables'
 * projections (migrations 3 and 10), which a subquery hides; any other range reads the seam
 * above. Each table or subquery a ClickHouse query touches costs milliseconds of its own, and
 * the seam touches four.
 */
export interface RollupSource {
  /** The relation for the FROM clause of a read of `table`. */
  from(table: UtcRollupTable): string;
  /** The conditions the read adds to its own on that relation (as `alias`), or none. */
  conditions(alias: string): string[];
  /** Which table holds the read's distinct orders. */
  orders: "order_rollups" | "order_keys";
}

export async function rollupSource(zone: string, startDate: string): Promise<RollupSource> {
  const orders = (await ordersFormFrom(startDate, zone === UTC)) === "keys" ? "order_keys" : "order_rollups";
  if (zone === UTC) return { from: (table) => table, conditions: () => [], orders };
  const firstOwnDay = knownClickhouseFirstOwnDay(zone);
  if (firstOwnDay !== null && firstOwnDay <= startDate) {
    return { from: (table) => ZONED_OF[table], conditions: (alias) => [`${alias}.zone = {readZone:String}`], orders };
  }
  return { from: (table) => seam(table), conditions: () => [], orders };
}

/** The UTC rows before the zone's since and the zone's own rows from it, as one relation. Needs readZone, startDate and endDate. */
function seam(table: UtcRollupTable): string {
  const zoned = ZONED_OF[table];
  const columns = TWIN_COLUMNS[zoned].join(", ");
  const days = "day BETWEEN {startDate:Date} AND {endDate:Date}";
  return `(SELECT ${columns} FROM ${table} WHERE ${days} AND day < toDate(${since()})
            UNION ALL
           SELECT ${columns} FROM ${zoned}
            WHERE zone = {readZone:String} AND ${days} AND day >= toDate(formatDateTime(${since()}, '%F', {readZone:String})))`;
}
