// Hand-written SQL: the consistency check recounts every report row from the raw tables, an
// aggregate over whole tables that the ORM cannot express. It is a tool, never a report path.
// The report tables: daily_rollups (the finest grain), two coarser sums of it that the reports
// read, each with its own distinct order count, daily_publisher_orders, and daily_ad_row_counts
// (how many daily_ad_totals rows there are).
import { bulkPool } from "@/server/db/pg-pool";
import { FILTERED_STATUSES } from "@/server/ingest/event-status";
import { REPORT_TABLES, type ReportTableSpec, ROLLUP_KEY, reportKeyGrouping } from "./report-tables";

const FILTERED = FILTERED_STATUSES.map(({ column }) => column);
const MEASURES = ["impressions", "views", "clicks", "spend_micros", ...FILTERED, "attributed_items", "conversions", "sales_revenue_micros"] as const;
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

// $1, $2: first and last day (inclusive, UTC). The rows of one table as ad_events and
// attributions say they should be, as the CTE `recounted`: events counted per key, and credited
// lines, distinct orders and sales per key.
function recountCtes(spec: ReportTableSpec): string {
  const key = spec.keys.join(", ");
  const events = reportKeyGrouping(spec, "created_at");
  const credited = reportKeyGrouping(spec, "placed_at");
  return `
events AS (
  SELECT ${events.columns},
         count(*) FILTER (WHERE status = 'counted' AND kind = 'impression') AS impressions,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'view') AS views,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'click') AS clicks,
         sum(spend_micros) AS spend_micros,
         ${FILTERED_STATUSES.map(({ status, column }) => `count(*) FILTER (WHERE status = '${status}') AS ${column}`).join(",\n         ")}
    FROM ad_events
   WHERE created_at >= $1::date AND created_at < $2::date + 1
   GROUP BY ${events.groupBy}
), credited AS (
  SELECT ${credited.columns},
         count(*) AS attributed_items, count(DISTINCT conversion_id) AS conversions, sum(total_value_micros) AS sales_revenue_micros
    FROM attributions
   WHERE placed_at >= $1::date AND placed_at < $2::date + 1
   GROUP BY ${credited.groupBy}
), recounted AS (
  SELECT ${key},
         coalesce(e.impressions, 0) AS impressions, coalesce(e.views, 0) AS views, coalesce(e.clicks, 0) AS clicks,
         coalesce(e.spend_micros, 0) AS spend_micros,
         ${FILTERED.map((column) => `coalesce(e.${column}, 0) AS ${column}`).join(", ")}, coalesce(c.attributed_items, 0) AS attributed_items,
         coalesce(c.conversions, 0) AS conversions, coalesce(c.sales_revenue_micros, 0) AS sales_revenue_micros
    FROM events e FULL JOIN credited c USING (${key})
)`;
}

function verifySql(spec: ReportTableSpec): string {
  const { table, keys } = spec;
  const key = keys.join(", ");
  const output = ROLLUP_KEY.map((k) => (k === "day" ? "day::text" : keys.includes(k) ? k : `NULL::text AS ${k}`)).join(", ");
  return `
WITH ${recountCtes(spec)}, stored AS (
  SELECT ${key}, ${MEASURES.join(", ")} FROM ${table} WHERE day BETWEEN $1::date AND $2::date
)
SELECT '${table}' AS "table", ${output}, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (${key})
 CROSS JOIN LATERAL (VALUES ${MEASURES.map((m) => `('${m}', coalesce(s.${m}, 0)::numeric, coalesce(r.${m}, 0)::numeric)`).join(", ")})
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY ${key}, m.measure`;
}

// daily_publisher_orders recounted: distinct orders per day and publisher, per advertiser and
// for every advertiser ('').
const PUBLISHER_ORDERS_RECOUNT = `
recounted AS (
  SELECT (placed_at AT TIME ZONE 'UTC')::date AS day, publisher_id,
         CASE WHEN grouping(advertiser_id) = 1 THEN '' ELSE advertiser_id END AS advertiser_id, count(DISTINCT conversion_id) AS conversions
    FROM attributions
   WHERE placed_at >= $1::date AND placed_at < $2::date + 1
   GROUP BY GROUPING SETS (((placed_at AT TIME ZONE 'UTC')::date, publisher_id, advertiser_id), ((placed_at AT TIME ZONE 'UTC')::date, publisher_id))
)`;

const VERIFY_PUBLISHER_ORDERS_SQL = `
WITH ${PUBLISHER_ORDERS_RECOUNT}, stored AS (
  SELECT day, publisher_id, advertiser_id, conversions FROM daily_publisher_orders WHERE day BETWEEN $1::date AND $2::date
)
SELECT 'daily_publisher_orders' AS "table", day::text, publisher_id, NULL::text AS site, advertiser_id, NULL::text AS campaign_id,
       NULL::text AS ad_id, NULL::text AS placement_name, 'conversions' AS measure,
       coalesce(s.conversions, 0)::text AS stored, coalesce(r.conversions, 0)::text AS recounted
  FROM stored s FULL JOIN recounted r USING (day, publisher_id, advertiser_id)
 WHERE coalesce(s.conversions, 0) <> coalesce(r.conversions, 0)
 ORDER BY day, publisher_id, advertiser_id`;

// daily_ad_row_counts recounted from daily_ad_totals (whose own figures the checks above recount
// from the raw tables).
const AD_ROW_COUNTS_RECOUNT = `
recounted AS (
  SELECT advertiser_id, day, campaign_id, count(*) FILTER (WHERE publisher_id = '') AS ad_rows,
         count(*) FILTER (WHERE publisher_id <> '') AS ad_publisher_rows
    FROM daily_ad_totals
   WHERE day BETWEEN $1::date AND $2::date
   GROUP BY 1, 2, 3
)`;

const VERIFY_AD_ROW_COUNTS_SQL = `
WITH ${AD_ROW_COUNTS_RECOUNT}, stored AS (
  SELECT advertiser_id, day, campaign_id, ad_rows, ad_publisher_rows FROM daily_ad_row_counts WHERE day BETWEEN $1::date AND $2::date
)
SELECT 'daily_ad_row_counts' AS "table", day::text, NULL::text AS publisher_id, NULL::text AS site, advertiser_id, campaign_id,
       NULL::text AS ad_id, NULL::text AS placement_name, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (advertiser_id, day, campaign_id)
 CROSS JOIN LATERAL (VALUES ('ad_rows', coalesce(s.ad_rows, 0), coalesce(r.ad_rows, 0)),
                            ('ad_publisher_rows', coalesce(s.ad_publisher_rows, 0), coalesce(r.ad_publisher_rows, 0)))
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY day, advertiser_id, campaign_id, m.measure`;

/**
 * Every figure of the report tables between two days (inclusive) that differs from a recount of
 * ad_events and attributions; empty when the report rows are right.
 */
export async function verifyRollups(firstDay: string, lastDay: string): Promise<RollupDifference[]> {
  const differences: RollupDifference[] = [];
  for (const spec of REPORT_TABLES) {
    const { rows } = await bulkPool().query<RollupDifference>(verifySql(spec), [firstDay, lastDay]);
    differences.push(...rows);
  }
  differences.push(...(await bulkPool().query<RollupDifference>(VERIFY_PUBLISHER_ORDERS_SQL, [firstDay, lastDay])).rows);
  differences.push(...(await bulkPool().query<RollupDifference>(VERIFY_AD_ROW_COUNTS_SQL, [firstDay, lastDay])).rows);
  return differences;
}

/**
 * Replaces the report rows between two days (inclusive) with a recount of ad_events and
 * attributions; returns the number of daily_rollups rows written. For loading generated data
 * (the report benchmark) and for repairs: the writers keep the rows current on their own.
 */
export async function rebuildRollups(firstDay: string, lastDay: string): Promise<number> {
  const client = await bulkPool().connect();
  try {
    await client.query("BEGIN");
    // An operator's repair (or the benchmark's seed) of many days recounts millions of rows in
    // one statement per table: it may run past the bulk pool's statement limit, which is there
    // for requests and jobs.
    await client.query("SET LOCAL statement_timeout = 0");
    let finest = 0;
    for (const spec of REPORT_TABLES) {
      const { table, keys } = spec;
      await client.query(`DELETE FROM ${table} WHERE day BETWEEN $1::date AND $2::date`, [firstDay, lastDay]);
      const { rowCount } = await client.query(
        `INSERT INTO ${table} (${keys.join(", ")}, ${MEASURES.join(", ")}) WITH ${recountCtes(spec)} SELECT ${keys.join(", ")}, ${MEASURES.join(", ")} FROM recounted`,
        [firstDay, lastDay],
      );
      if (table === "daily_rollups") finest = rowCount ?? 0;
    }
    await client.query("DELETE FROM daily_publisher_orders WHERE day BETWEEN $1::date AND $2::date", [firstDay, lastDay]);
    await client.query(
      `INSERT INTO daily_publisher_orders (day, publisher_id, advertiser_id, conversions) WITH ${PUBLISHER_ORDERS_RECOUNT} SELECT * FROM recounted`,
      [firstDay, lastDay],
    );
    await client.query("DELETE FROM daily_ad_row_counts WHERE day BETWEEN $1::date AND $2::date", [firstDay, lastDay]);
    await client.query(
      `INSERT INTO daily_ad_row_counts (advertiser_id, day, campaign_id, ad_rows, ad_publisher_rows) WITH ${AD_ROW_COUNTS_RECOUNT} SELECT * FROM recounted`,
      [firstDay, lastDay],
    );
    await client.query("COMMIT");
    return finest;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}
