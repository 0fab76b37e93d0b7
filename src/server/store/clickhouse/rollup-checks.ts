// The consistency check and repair of ClickHouse's report rollups (RollupChecks), from its own raw
// ad_events and attributions, over the days whose raw rows its TTL has kept all of.
//
// A rebuild swaps whole months of the rollup tables (report_rollups' sums, order_rollups' order
// states, order_keys' order keys): for each month the days fall in and each table, a staging table shaped as it is filled
// with the recount of the days asked plus the month's other days copied as they are, then takes
// that month's place with REPLACE PARTITION, one atomic step per table. Reads see
// the old month or the new one, never a day emptied and not yet refilled (as dropping the days
// and inserting them again would show), and nothing is deleted row by row (a mutation, rewriting
// parts in the background while reads go on). While it runs, nothing else may add to the rollups
// (rollup-writers.sql.ts): the shipper's batches and the backfill wait for it.
// Each kept zone's rows are checked and rebuilt too, over its local days from its since on
// (verify-zoned-rollups.ch.sql.ts); they are deleted and recounted rather than swapped by month.
// So are the hourly rollups (migration 8) of every kept zone, UTC's too, over its local days from
// its hours_since on (hourly-recount.ch.sql.ts).
import { addDays, DAY_MS, utcDay } from "@/server/core/days";
import { localDay, UTC } from "@/server/core/time-zones";
import type { RollupChecks, RollupDifference } from "@/server/store/rollup-checks";
import { runCommand, selectRows } from "./client";
import { rebuildHourlyZone, verifyHourlyZone, type ZoneHours } from "./hourly-recount.ch.sql";
import { currentSchema } from "./migrate.sql";
import { type ClickhouseZone, clickhouseZones, DROPPED_SINCE_MS, postgresZones } from "./report-zones.sql";
import { asRollupRebuilder } from "./rollup-writers.sql";
import {
  copyOtherDays,
  createStaging,
  dropTable,
  keysOnDays,
  ROLLUP_TABLES,
  type RollupTable,
  recountInto,
  replacePartition,
  TABLE_DEFINITION,
  VERIFY_ORDER_KEYS,
  VERIFY_ROLLUPS,
} from "./verify-rollups.ch.sql";
import { rebuildZone, verifyZone, type ZoneDays } from "./verify-zoned-rollups.ch.sql";
import { clickhouseZoneBackfill } from "./zone-backfill.ch.sql";
import { orderKeysSince } from "./zoned-source.sql";

const stagingOf = (target: RollupTable) => `${target}_rebuild`;

// As migrate.ts's applyTtl reads a table's TTL back from its definition.
const TTL_DAYS = /\bTTL\s+\S+\s*\+\s*(?:toIntervalDay\((\d+)\)|INTERVAL\s+(\d+)\s+DAY)/i;

/**
 * The first day all of whose rows of `table` its TTL still keeps, or null without a TTL. A row
 * goes once its time plus the TTL has passed, so the day after the one `days` ago is the first
 * whole one.
 */
async function keptFrom(table: "ad_events" | "attributions"): Promise<string | null> {
  const [row] = await selectRows<{ create_table_query: string }>(TABLE_DEFINITION, { name: currentSchema().local(table) });
  const ttl = TTL_DAYS.exec(row?.create_table_query ?? "");
  if (!ttl) return null;
  return addDays(utcDay(Date.now() - Number(ttl[1] ?? ttl[2]) * DAY_MS), 1);
}

async function rawRowsKeptFrom(): Promise<{ adEvents: string | null; orders: string | null }> {
  return { adEvents: await keptFrom("ad_events"), orders: await keptFrom("attributions") };
}

async function firstDayWithRawRows(firstDay: string): Promise<string> {
  const kept = await rawRowsKeptFrom();
  return [firstDay, kept.adEvents ?? firstDay, kept.orders ?? firstDay].sort().at(-1)!;
}

async function verify(from: string, lastDay: string): Promise<RollupDifference[]> {
  const firstDay = await firstDayWithRawRows(from);
  if (firstDay > lastDay) return [];
  const differences = await selectRows<RollupDifference>(VERIFY_ROLLUPS, { firstDay, lastDay });
  // The order keys hold no day before their first (the states answer for those).
  const keysFrom = [firstDay, await orderKeysSince()].sort().at(-1)!;
  if (keysFrom <= lastDay) differences.push(...(await selectRows<RollupDifference>(VERIFY_ORDER_KEYS, { firstDay: keysFrom, lastDay })));
  for (const days of await zoneDaysOf(from, lastDay)) differences.push(...(await verifyZone(days)));
  for (const hours of await zoneHoursOf(from, lastDay)) differences.push(...(await verifyHourlyZone(hours)));
  return differences;
}

/**
 * Each kept zone's local days from `from` to `lastDay` that its rows and the raw rows both hold
 * whole: from the zone's since on (its first local day holds only what is at or after since, and
 * the recount starts there too), and where the TTL has dropped raw rows after since, from the
 * first local day that begins after the first held moment.
 */
async function zoneDaysOf(from: string, lastDay: string): Promise<ZoneDays[]> {
  return zoneStretchesOf(
    from,
    lastDay,
    (z) => z.zone !== UTC,
    (z) => z.sinceMs,
  );
}

/** Each kept zone's local days of hourly cells (UTC's too) that its rows and the raw rows both hold whole, from its hours_since on. */
async function zoneHoursOf(from: string, lastDay: string): Promise<ZoneHours[]> {
  return zoneStretchesOf(
    from,
    lastDay,
    () => true,
    (z) => z.hoursSinceMs,
  );
}

async function zoneStretchesOf(
  from: string,
  lastDay: string,
  grainKeeps: (z: ClickhouseZone) => boolean,
  startOf: (z: ClickhouseZone) => number,
): Promise<ZoneDays[]> {
  const [postgres, kept, held] = await Promise.all([postgresZones(), clickhouseZones(), firstHeldDay()]);
  const heldFrom = held === null ? Number.NEGATIVE_INFINITY : Date.parse(`${held}T00:00:00Z`);
  return kept
    .filter((z) => grainKeeps(z) && z.sinceMs < DROPPED_SINCE_MS && (z.zone === UTC || postgres.has(z.zone)))
    .map((z) => {
      const fromMs = Math.max(startOf(z), heldFrom);
      const firstOwn = fromMs === startOf(z) ? localDay(fromMs, z.zone) : addDays(localDay(fromMs, z.zone), 1);
      return { zone: z.zone, firstDay: firstOwn > from ? firstOwn : from, lastDay, from: new Date(fromMs) };
    });
}

/** The days from `first` to `last` split by month: each month's first and last day asked, and its partition (YYYYMM). */
function months(first: string, last: string): { firstDay: string; lastDay: string; partition: string }[] {
  const spans: { firstDay: string; lastDay: string; partition: string }[] = [];
  for (let day = first; day <= last; ) {
    const nextMonth = addDays(`${day.slice(0, 7)}-01`, 32).slice(0, 7);
    const monthEnd = addDays(`${nextMonth}-01`, -1);
    const lastDay = monthEnd < last ? monthEnd : last;
    spans.push({ firstDay: day, lastDay, partition: day.slice(0, 7).replace("-", "") });
    day = addDays(lastDay, 1);
  }
  return spans;
}

/**
 * Rebuilds the days of `target` month by month; returns how many keys the rebuilt days hold.
 * A staging table of its own for each month, so no earlier insert's block is taken for a duplicate.
 */
async function rebuildTable({ table: target, order }: (typeof ROLLUP_TABLES)[number], spans: ReturnType<typeof months>): Promise<number> {
  const schema = currentSchema();
  const name = stagingOf(target);
  const staging = schema.local(name);
  const dropStaging = async () => {
    // The Distributed table first (a cluster's), then the table under it.
    for (const table of new Set([name, staging])) await runCommand(dropTable(table, schema.onCluster));
  };
  let written = 0;
  for (const month of spans) {
    await dropStaging();
    await runCommand(createStaging(staging, schema.local(target), schema.onCluster, schema.engine("AggregatingMergeTree", name), order));
    for (const statement of schema.distributed(name, "cityHash64(advertiser_id)")) await runCommand(statement);
    const days = { firstDay: month.firstDay, lastDay: month.lastDay };
    await runCommand(copyOtherDays(target, name), days);
    for (const insert of recountInto(target, name)) await runCommand(insert, days);
    written += Number((await selectRows<{ n: string }>(keysOnDays(name), days))[0]!.n);
    await runCommand(replacePartition(schema.local(target), staging, schema.onCluster), { partition: month.partition });
  }
  await dropStaging();
  return written;
}

/** Rebuilds both rollup tables over the days; returns how many report rows (report_rollups' keys) the days hold. */
async function rebuild(from: string, lastDay: string): Promise<number> {
  const firstDay = await firstDayWithRawRows(from);
  if (firstDay > lastDay) return 0;
  const spans = months(firstDay, lastDay);
  return asRollupRebuilder(async () => {
    let reportRows = 0;
    for (const table of ROLLUP_TABLES) {
      const written = await rebuildTable(table, spans);
      if (table.table === "report_rollups") reportRows = written;
    }
    for (const days of await zoneDaysOf(from, lastDay)) reportRows += await rebuildZone(days);
    for (const hours of await zoneHoursOf(from, lastDay)) await rebuildHourlyZone(hours);
    return reportRows;
  });
}

/** The first UTC day whose raw rows ClickHouse holds whole (both tables), or null when its TTL has dropped none. */
async function firstHeldDay(): Promise<string | null> {
  const kept = await rawRowsKeptFrom();
  return (
    [kept.adEvents, kept.orders]
      .filter((day): day is string => day !== null)
      .sort()
      .at(-1) ?? null
  );
}

const zoneBackfill = clickhouseZoneBackfill(firstHeldDay);

export const clickhouseRollups: RollupChecks = { verify, rebuild, firstDayWithRawRows, rawRowsKeptFrom, zoneBackfill };
