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
  ORDER_COUNTS,
  ORDER_MEASURES,
  REPORT_TABLES,
  type ReportTableSpec,
  ROLLUP_KEY,
  reportKeyGrouping,
} from "@/server/store/postgres/rollup-tables.sql";

const FILTERED = FILTERED_STATUSES.map(({ column }) => column);
const MEASURES = ["impressions", "views", "clicks", "spend_micros", ...FILTERED, ...CREDIT_MEASURES] as const;
/** `ad_rows` and `ad_publisher_rows`: daily_ad_row_counts against a count of daily_ad_totals. */
export type RollupMeasure = (typeof MEASURES)[number] | "ad_rows" | "ad_publisher_rows";

export type ReportTable = ReportTableSpec["table"] | "daily_publisher_orders" | "daily_ad_row_counts";

export interface RollupDifference {
  table: ReportTable;
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

/** First and last day, inclusive, UTC. */
interface Days {
  firstDay: string;
  lastDay: string;
}

// Table and column names below come from REPORT_TABLES, ROLLUP_KEY, MEASURES and FILTERED_STATUSES,
// fixed lists, never from input.
const MEASURE_LIST = raw(MEASURES.join(", "));

// The rows of one table as ad_events and attributions say they should be, as the CTE
// `recounted`: events counted per key, and credited lines, distinct orders, sales and units per key,
// with the unverified and uncredited orders and their sales, and converted clicks on the click's
// day, each click once however many orders it led to (rollup-tables.sql.ts, CREDIT_SUMS).
function recountCtes(spec: ReportTableSpec, { firstDay, lastDay }: Days): Sql {
  const key = raw(spec.keys.join(", "));
  const events = reportKeyGrouping(spec, "created_at");
  const credited = reportKeyGrouping(spec, "at");
  return sql`
events AS (
  SELECT ${raw(events.columns)},
         count(*) FILTER (WHERE status = 'counted' AND kind = 'impression') AS impressions,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'view') AS views,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'click') AS clicks,
         sum(spend_micros) AS spend_micros,
         ${raw(FILTERED_STATUSES.map(({ status, column }) => `count(*) FILTER (WHERE status = '${status}') AS ${column}`).join(",\n         "))}
    FROM ad_events
   WHERE created_at >= ${firstDay}::date AND created_at < ${lastDay}::date + 1
   GROUP BY ${raw(events.groupBy)}
), lines_placed AS (
  SELECT * FROM attributions WHERE placed_at >= ${firstDay}::date AND placed_at < ${lastDay}::date + 1
), clicks_credited AS (
  SELECT * FROM attributions
   WHERE ${raw(CONVERTING_CLICK_LINES)} AND event_created_at >= ${firstDay}::date AND event_created_at < ${lastDay}::date + 1
), credited (${key}, ${raw(CREDIT_MEASURES.join(", "))}) AS (
  SELECT ${raw(credited.columns)}, ${raw(CREDIT_SUMS)}
    FROM (${raw(creditRows("lines_placed", "clicks_credited"))}) credit_rows
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
  const output = raw(ROLLUP_KEY.map((k) => (k === "day" ? "day::text" : keys.includes(k) ? k : `NULL::text AS ${k}`)).join(", "));
  const compared = raw(MEASURES.map((m) => `('${m}', coalesce(s.${m}, 0)::numeric, coalesce(r.${m}, 0)::numeric)`).join(", "));
  return sql`
WITH ${recountCtes(spec, days)}, stored AS (
  SELECT ${key}, ${MEASURE_LIST} FROM ${raw(table)} WHERE day BETWEEN ${days.firstDay}::date AND ${days.lastDay}::date
)
SELECT ${raw(`'${table}'`)} AS "table", ${output}, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (${key})
 CROSS JOIN LATERAL (VALUES ${compared})
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY ${key}, m.measure`;
}

// daily_publisher_orders recounted: distinct orders per day and publisher, per advertiser and
// for every advertiser ('').
const publisherOrdersRecount = ({ firstDay, lastDay }: Days) => sql`
recounted (day, publisher_id, advertiser_id, ${raw(ORDER_MEASURES.join(", "))}) AS (
  SELECT (at AT TIME ZONE 'UTC')::date AS day, publisher_id,
         CASE WHEN grouping(advertiser_id) = 1 THEN '' ELSE advertiser_id END AS advertiser_id, ${raw(ORDER_COUNTS)}
    FROM (${raw(creditRows("attributions", "(SELECT * FROM attributions WHERE false) no_clicks"))}) credit_rows
   WHERE at >= ${firstDay}::date AND at < ${lastDay}::date + 1 AND NOT converted_click
   GROUP BY GROUPING SETS (((at AT TIME ZONE 'UTC')::date, publisher_id, advertiser_id), ((at AT TIME ZONE 'UTC')::date, publisher_id))
)`;

const verifyPublisherOrders = (days: Days) => sql`
WITH ${publisherOrdersRecount(days)}, stored AS (
  SELECT day, publisher_id, advertiser_id, ${raw(ORDER_MEASURES.join(", "))} FROM daily_publisher_orders WHERE day BETWEEN ${days.firstDay}::date AND ${days.lastDay}::date
)
SELECT 'daily_publisher_orders' AS "table", day::text, publisher_id, NULL::text AS site, advertiser_id, NULL::text AS campaign_id,
       NULL::text AS ad_id, NULL::text AS placement_name, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (day, publisher_id, advertiser_id)
 CROSS JOIN LATERAL (VALUES ${raw(ORDER_MEASURES.map((m) => `('${m}', coalesce(s.${m}, 0), coalesce(r.${m}, 0))`).join(", "))})
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY day, publisher_id, advertiser_id, m.measure`;

const verifyAdRowCounts = (days: Days) => sql`
WITH ${adRowCountsRecount(days.firstDay, days.lastDay)}, stored AS (
  SELECT advertiser_id, day, campaign_id, ad_rows, ad_publisher_rows FROM daily_ad_row_counts WHERE day BETWEEN ${days.firstDay}::date AND ${days.lastDay}::date
)
SELECT 'daily_ad_row_counts' AS "table", day::text, NULL::text AS publisher_id, NULL::text AS site, advertiser_id, campaign_id,
       NULL::text AS ad_id, NULL::text AS placement_name, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (advertiser_id, day, campaign_id)
 CROSS JOIN LATERAL (VALUES ('ad_rows', coalesce(s.ad_rows, 0), coalesce(r.ad_rows, 0)),
                            ('ad_publisher_rows', coalesce(s.ad_publisher_rows, 0), coalesce(r.ad_publisher_rows, 0)))
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY day, advertiser_id, campaign_id, m.measure`;

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
  const days = { firstDay, lastDay };
  const differences: RollupDifference[] = [];
  for (const spec of REPORT_TABLES) {
    const { rows } = await bulkPool().query<RollupDifference>(verifyTable(spec, days));
    differences.push(...rows);
  }
  differences.push(...(await bulkPool().query<RollupDifference>(verifyPublisherOrders(days))).rows);
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
  const days = { firstDay, lastDay };
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
        const { rowCount } = await client.query(sql`INSERT INTO ${table} (${columns}) WITH ${recountCtes(spec, days)} SELECT ${columns} FROM recounted`);
        if (spec.table === "daily_rollups") finest = rowCount ?? 0;
      }
      await client.query(sql`DELETE FROM daily_publisher_orders WHERE ${inRange}`);
      await client.query(
        sql`INSERT INTO daily_publisher_orders (day, publisher_id, advertiser_id, ${raw(ORDER_MEASURES.join(", "))}) WITH ${publisherOrdersRecount(days)} SELECT * FROM recounted`,
      );
      await client.query(sql`DELETE FROM daily_ad_row_counts WHERE ${inRange}`);
      await client.query(
        sql`INSERT INTO daily_ad_row_counts (advertiser_id, day, campaign_id, ad_rows, ad_publisher_rows) WITH ${adRowCountsRecount(firstDay, lastDay)} SELECT * FROM recounted`,
      );
      return finest;
    },
    { pool: bulkPool() },
  );
}
