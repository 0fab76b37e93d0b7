// Hand-written SQL: the consistency check recounts every report row from the raw tables, an
// aggregate over whole tables that the ORM cannot express. It is a tool, never a report path,
// reached through the seam (store().rollups) by `npm run rollups:verify` and the tests.
// The report tables: daily_rollups (the finest grain), two coarser sums of it that the reports
// read, each with its own distinct order count, daily_publisher_orders, and daily_ad_row_counts
// (how many daily_ad_totals rows there are).
import sql, { raw, type Sql } from "sql-template-tag";
import { addDays } from "@/server/core/days";
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { bulkPool, pgPool } from "@/server/db/pg-pool";
import { inTransaction } from "@/server/db/transaction";
import { setLocalStatementTimeout } from "@/server/db/transaction.sql";
import { adRowCountsRecount } from "@/server/store/postgres/ad-row-counts.sql";
import {
  CONVERTING_CLICK_LINES,
  CREDIT_MEASURES,
  CREDIT_SUMS,
  creditRows,
  type KeyColumn,
  localDay,
  localHour,
  ORDER_COUNTS,
  ORDER_MEASURES,
  REPORT_TABLES,
  type ReportTableSpec,
  ROLLUP_KEY,
  reportKeyGrouping,
  zonedSource,
} from "@/server/store/postgres/rollup-tables.sql";

const FILTERED = FILTERED_STATUSES.map(({ column }) => column);
export const MEASURES = ["impressions", "views", "clicks", "spend_micros", ...FILTERED, ...CREDIT_MEASURES] as const;
/** `ad_rows` and `ad_publisher_rows`: daily_ad_row_counts against a count of daily_ad_totals. */
export type RollupMeasure = (typeof MEASURES)[number] | "ad_rows" | "ad_publisher_rows";

export type ReportTable = ReportTableSpec["table"] | "daily_publisher_orders" | "daily_ad_row_counts";

export interface RollupDifference {
  table: ReportTable;
  /** The zone whose local date `day` is. */
  zone: string;
  day: string;
  /** The row's key; columns the table does not have are null. */
  publisher_id: string | null;
  site: string | null;
  advertiser_id: string | null;
  campaign_id: string | null;
  ad_id: string | null;
  placement_name: string | null;
  measure: RollupMeasure;
  /** In the table. */
  stored: string;
  /** Recounted from ad_events and attributions. */
  recounted: string;
}

/** First and last day, inclusive: local dates in each kept zone. */
interface Days {
  firstDay: string;
  lastDay: string;
  /**
   * Only the local days that begin at or after the first UTC day's midnight (a check: in a zone
   * ahead of UTC the first local day begins on the UTC day before, whose raw rows retention may
   * have dropped); a rebuild takes every local day of the range.
   */
  wholeDaysOnly: boolean;
}

/**
 * What a recount covers: `zones`, a CTE of the zones recounted, each with the UTC moments
 * [from_at, to_at) it covers besides its own start (since, hours_since), and the raw rows read,
 * [from, to) (the UTC moments of a stretch, or of days: `2026-11-20` reads as its midnight), so
 * that the partitions, and rows, of other moments are left alone.
 */
export interface RecountSpan {
  zones: Sql;
  rawFrom: Sql;
  rawTo: Sql;
}

/**
 * The kept zones Postgres knows, as the CTE `zones` (ZONES_CTE's columns), each with the local days the
 * check or rebuild covers: from `first_day` to the last day, the UTC moments [from_at, to_at) they span.
 */
const zonesCte = ({ firstDay, lastDay, wholeDaysOnly }: Days): Sql => sql`
zones AS (
  SELECT zone, zone AS tz, since, 'infinity'::timestamptz AS until, hours_since, 'infinity'::timestamptz AS hours_until, first_day,
         (first_day::timestamp AT TIME ZONE zone) AS from_at, ((${lastDay}::date + 1)::timestamp AT TIME ZONE zone) AS to_at
    FROM report_zones,
         LATERAL (SELECT CASE WHEN ${wholeDaysOnly}::boolean AND (${firstDay}::date::timestamp AT TIME ZONE zone) < (${firstDay}::date::timestamp AT TIME ZONE 'UTC')
                              THEN ${firstDay}::date + 1 ELSE ${firstDay}::date END AS first_day) f
   WHERE zone NOT IN (SELECT zone FROM unknown_report_zones)
)`;

/** Every kept zone over the local days of a check or rebuild. */
// Raw rows of the UTC days around the range (every zone's offset is within a day of UTC).
const keptZonesSpan = (days: Days): RecountSpan => ({
  zones: zonesCte(days),
  rawFrom: sql`${days.firstDay}::date - 1`,
  rawTo: sql`${days.lastDay}::date + 2`,
});

/** Source rows in the moments each zone covers (RecountSpan), from the zone's start on. */
const zonedSpan = (spec: { keys: readonly KeyColumn[] }, relation: string, time: string) =>
  `${zonedSource(spec, relation, time)} AND ${time} >= z.from_at AND ${time} < z.to_at`;

const aroundRange = (time: string, { rawFrom, rawTo }: RecountSpan) => sql`${raw(time)} >= ${rawFrom} AND ${raw(time)} < ${rawTo}`;

// Table and column names below come from REPORT_TABLES, ROLLUP_KEY, MEASURES and FILTERED_STATUSES,
// fixed lists, never from input.
const MEASURE_LIST = raw(MEASURES.join(", "));

// The rows of one table as ad_events and attributions say they should be, as the CTE
// `recounted`: events counted per key, and credited lines, distinct orders, sales and units per key,
// with the unverified and uncredited orders and their sales, and converted clicks on the click's
// day, each click once however many orders it led to (rollup-tables.sql.ts, CREDIT_SUMS).
export function recountCtes(spec: ReportTableSpec, span: RecountSpan): Sql {
  const key = raw(spec.keys.join(", "));
  const events = reportKeyGrouping(spec, "created_at");
  const credited = reportKeyGrouping(spec, "at");
  return sql`
${span.zones}, events AS (
  SELECT ${raw(events.columns)},
         count(*) FILTER (WHERE status = 'counted' AND kind = 'impression') AS impressions,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'view') AS views,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'click') AS clicks,
         sum(spend_micros) AS spend_micros,
         ${raw(FILTERED_STATUSES.map(({ status, column }) => `count(*) FILTER (WHERE status = '${status}') AS ${column}`).join(",\n         "))}
    FROM ${raw(zonedSpan(spec, "ad_events", "created_at"))}
   WHERE ${aroundRange("created_at", span)}
   GROUP BY ${raw(events.groupBy)}
), lines_placed AS (
  SELECT * FROM attributions WHERE ${aroundRange("placed_at", span)}
), clicks_credited AS (
  SELECT * FROM attributions
   WHERE ${raw(CONVERTING_CLICK_LINES)} AND ${aroundRange("event_created_at", span)}
), credited (${key}, ${raw(CREDIT_MEASURES.join(", "))}) AS (
  SELECT ${raw(credited.columns)}, ${raw(CREDIT_SUMS)}
    FROM ${raw(zonedSpan(spec, `(${creditRows("lines_placed", "clicks_credited")}) credit_rows`, "at"))}
   GROUP BY ${raw(credited.groupBy)}
), recounted AS (
  SELECT ${key},
         coalesce(e.impressions, 0) AS impressions, coalesce(e.views, 0) AS views, coalesce(e.clicks, 0) AS clicks,
         coalesce(e.spend_micros, 0) AS spend_micros,
         ${raw(FILTERED.map((column) => `coalesce(e.${column}, 0) AS ${column}`).join(", "))},
         ${raw(CREDIT_MEASURES.map((m) => `coalesce(c.${m}, 0) AS ${m}`).join(", "))}
    FROM events e FULL JOIN credited c USING (${key})
)`;
}

function verifyTable(spec: ReportTableSpec, days: Days): Sql {
  const { table, keys } = spec;
  const key = raw(keys.join(", "));
  const output = raw((["zone", ...ROLLUP_KEY] as KeyColumn[]).map((k) => (k === "day" ? "day::text" : keys.includes(k) ? k : `NULL::text AS ${k}`)).join(", "));
  const compared = raw(MEASURES.map((m) => `('${m}', coalesce(s.${m}, 0)::numeric, coalesce(r.${m}, 0)::numeric)`).join(", "));
  return sql`
WITH ${recountCtes(spec, keptZonesSpan(days))}, stored AS (
  SELECT ${key}, ${MEASURE_LIST} FROM ${raw(table)} JOIN zones z USING (zone) WHERE day BETWEEN z.first_day AND ${days.lastDay}::date
)
SELECT ${raw(`'${table}'`)} AS "table", ${output}, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (${key})
 CROSS JOIN LATERAL (VALUES ${compared})
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY ${key}, m.measure`;
}

// daily_publisher_orders (and hourly_publisher_orders) recounted: distinct orders per zone, local
// day (and hour) and publisher, per advertiser and for every advertiser ('').
export type OrdersGrain = "daily" | "hourly";
export const ordersKey = (grain: OrdersGrain) => ["zone", "day", ...(grain === "hourly" ? ["hour"] : []), "publisher_id", "advertiser_id"];

export const publisherOrdersRecount = (grain: OrdersGrain, span: RecountSpan) => {
  const hourly = grain === "hourly";
  const time = ["z.zone", localDay("at"), ...(hourly ? [localHour("at")] : [])].join(", ");
  const spec = { keys: (hourly ? ["hour"] : []) as KeyColumn[] };
  return sql`
${span.zones}, recounted (${raw(ordersKey(grain).join(", "))}, ${raw(ORDER_MEASURES.join(", "))}) AS (
  SELECT ${raw(time)}, publisher_id,
         CASE WHEN grouping(advertiser_id) = 1 THEN '' ELSE advertiser_id END AS advertiser_id, ${raw(ORDER_COUNTS)}
    FROM ${raw(zonedSpan(spec, `(${creditRows("attributions", "(SELECT * FROM attributions WHERE false) no_clicks")}) credit_rows`, "at"))}
   WHERE ${aroundRange("at", span)} AND NOT converted_click
   GROUP BY GROUPING SETS ((${raw(time)}, publisher_id, advertiser_id), (${raw(time)}, publisher_id))
)`;
};

const verifyPublisherOrders = (grain: OrdersGrain, days: Days) => {
  const key = raw(ordersKey(grain).join(", "));
  return sql`
WITH ${publisherOrdersRecount(grain, keptZonesSpan(days))}, stored AS (
  SELECT ${key}, ${raw(ORDER_MEASURES.join(", "))} FROM ${raw(`${grain}_publisher_orders`)} JOIN zones z USING (zone)
   WHERE day BETWEEN z.first_day AND ${days.lastDay}::date
)
SELECT ${raw(`'${grain}_publisher_orders'`)} AS "table", zone, day::text, publisher_id, NULL::text AS site, advertiser_id, NULL::text AS campaign_id,
       NULL::text AS ad_id, NULL::text AS placement_name, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (${key})
 CROSS JOIN LATERAL (VALUES ${raw(ORDER_MEASURES.map((m) => `('${m}', coalesce(s.${m}, 0), coalesce(r.${m}, 0))`).join(", "))})
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY ${key}, m.measure`;
};

const verifyAdRowCounts = (days: Days) => sql`
WITH ${adRowCountsRecount(days.firstDay, days.lastDay)}, stored AS (
  SELECT advertiser_id, zone, day, campaign_id, ad_rows, ad_publisher_rows FROM daily_ad_row_counts WHERE day BETWEEN ${days.firstDay}::date AND ${days.lastDay}::date
)
SELECT 'daily_ad_row_counts' AS "table", zone, day::text, NULL::text AS publisher_id, NULL::text AS site, advertiser_id, campaign_id,
       NULL::text AS ad_id, NULL::text AS placement_name, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (advertiser_id, zone, day, campaign_id)
 CROSS JOIN LATERAL (VALUES ('ad_rows', coalesce(s.ad_rows, 0), coalesce(r.ad_rows, 0)),
                            ('ad_publisher_rows', coalesce(s.ad_publisher_rows, 0), coalesce(r.ad_publisher_rows, 0)))
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY zone, day, advertiser_id, campaign_id, m.measure`;

/** The first day whose raw rows are all still there, per family; null where retention has removed nothing. */
export async function rawRowsKeptFrom(): Promise<{ adEvents: string | null; orders: string | null }> {
  const { rows } = await pgPool().query<{ table_name: string; kept_from: string }>(sql`SELECT table_name, kept_from::text FROM raw_retention`);
  const of = (name: string) => rows.find((row) => row.table_name === name)?.kept_from ?? null;
  return { adEvents: of("ad_events"), orders: of("conversions") };
}

/**
 * The first day from `firstDay` on whose raw rows (ad_events, conversions and attributions) are
 * all still there: retention drops old days, and the report rows outlive them.
 */
export async function firstDayWithRawRows(firstDay: string): Promise<string> {
  const kept = await rawRowsKeptFrom();
  return [firstDay, kept.adEvents ?? firstDay, kept.orders ?? firstDay].sort().at(-1)!;
}

/**
 * Every figure of the report tables between two days (inclusive) that differs from a recount of
 * ad_events and attributions; empty when the report rows are right. Only days whose raw rows
 * retention has kept are recounted (firstDayWithRawRows).
 */
export async function verifyRollups(from: string, lastDay: string): Promise<RollupDifference[]> {
  const firstDay = await firstDayWithRawRows(from);
  if (firstDay > lastDay) return [];
  const days = { firstDay, lastDay, wholeDaysOnly: true };
  const differences: RollupDifference[] = [];
  for (const spec of REPORT_TABLES) {
    const { rows } = await bulkPool().query<RollupDifference>(verifyTable(spec, days));
    differences.push(...rows);
  }
  for (const grain of ["daily", "hourly"] as const) differences.push(...(await bulkPool().query<RollupDifference>(verifyPublisherOrders(grain, days))).rows);
  differences.push(...(await bulkPool().query<RollupDifference>(verifyAdRowCounts(days))).rows);
  return differences;
}

/**
 * Replaces the report rows between two days (inclusive) with a recount of ad_events and
 * attributions; returns the number of daily_rollups rows written. For loading generated data
 * (the report benchmark) and for repairs: the writers keep the rows current on their own. Days
 * whose raw rows retention has dropped keep their report rows: a recount would erase them. One
 * transaction a day, so a repair of many days never holds one transaction, or its locks, over
 * all of them.
 */
export async function rebuildRollups(from: string, lastDay: string): Promise<number> {
  let written = 0;
  for (let day = await firstDayWithRawRows(from); day <= lastDay; day = addDays(day, 1)) written += await rebuildRollupDays(day, day);
  return written;
}

async function rebuildRollupDays(firstDay: string, lastDay: string): Promise<number> {
  const days = { firstDay, lastDay, wholeDaysOnly: false };
  const inRange = sql`day BETWEEN ${firstDay}::date AND ${lastDay}::date`;
  return inTransaction(
    async (client) => {
      // An operator's repair (or the benchmark's seed) recounts a day's millions of rows in one
      // statement per table: it may run past the bulk pool's statement limit, which is there for
      // requests and jobs.
      await client.query(setLocalStatementTimeout(0));
      let finest = 0;
      for (const spec of REPORT_TABLES) {
        const table = raw(spec.table);
        const columns = raw(`${spec.keys.join(", ")}, ${MEASURES.join(", ")}`);
        await client.query(sql`DELETE FROM ${table} WHERE ${inRange}`);
        const { rowCount } = await client.query(
          sql`INSERT INTO ${table} (${columns}) WITH ${recountCtes(spec, keptZonesSpan(days))} SELECT ${columns} FROM recounted`,
        );
        if (spec.table === "daily_rollups") finest = rowCount ?? 0;
      }
      for (const grain of ["daily", "hourly"] as const) {
        const table = raw(`${grain}_publisher_orders`);
        await client.query(sql`DELETE FROM ${table} WHERE ${inRange}`);
        await client.query(
          sql`INSERT INTO ${table} (${raw(ordersKey(grain).join(", "))}, ${raw(ORDER_MEASURES.join(", "))}) WITH ${publisherOrdersRecount(grain, keptZonesSpan(days))} SELECT * FROM recounted`,
        );
      }
      await client.query(sql`DELETE FROM daily_ad_row_counts WHERE ${inRange}`);
      await client.query(
        sql`INSERT INTO daily_ad_row_counts (advertiser_id, zone, day, campaign_id, ad_rows, ad_publisher_rows) WITH ${adRowCountsRecount(firstDay, lastDay)} SELECT * FROM recounted`,
      );
      return finest;
    },
    { pool: bulkPool() },
  );
}
