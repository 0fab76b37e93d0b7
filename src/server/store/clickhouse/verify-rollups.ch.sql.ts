// Hand-written SQL: ClickHouse's report rollups (report_rollups' sums and order_rollups' distinct
// order states) recounted from its raw ad_events and attributions (the consistency check), rebuilt
// from them (a repair), and how far back the raw rows are all still there (their TTL). The recount
// counts what the materialized views of migrations/0001-settled-events.ts and 0002-order-rollups.ts count, with the statuses and credit measures Postgres's check
// uses (store/postgres/rollup-tables.ts), so both checks report the same measures. Days are
// `{name:Date}` parameters; the rest of the text comes from the fixed lists below.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { CREDIT_MEASURES, ROLLUP_KEY } from "@/server/store/postgres/rollup-tables";

const KEY = ROLLUP_KEY.join(", ");
const NOT_DAY = ROLLUP_KEY.filter((column) => column !== "day").join(", ");

// Each measure of the events' view and of the attributions' view: as a value (the recount) and as
// what the view inserts into its rollup table (the rebuild); one list, so the two cannot differ.
interface Measure {
  name: string;
  value: string;
  state: string;
}
const plain = (name: string, value: string): Measure => ({ name, value, state: value });

const EVENT_MEASURES: readonly Measure[] = [
  plain("impressions", "countIf(status = 'counted' AND kind = 'impression')"),
  plain("views", "countIf(status = 'counted' AND kind = 'view')"),
  plain("clicks", "countIf(status = 'counted' AND kind = 'click')"),
  plain("spend_micros", "sum(spend_micros)"),
  ...FILTERED_STATUSES.map(({ status, column }) => plain(column, `countIf(status = '${status}')`)),
];

const orders = (condition: string) => ({ value: `uniqExactIf(conversion_id, ${condition})`, state: `uniqExactStateIf(conversion_id, ${condition})` });
const sales = (condition: string) => `sumIf(toInt128(total_value_micros), ${condition})`;
const CREDIT: Record<(typeof CREDIT_MEASURES)[number], Measure> = {
  attributed_items: plain("attributed_items", "countIf(credited)"),
  conversions: { name: "conversions", ...orders("credited") },
  sales_revenue_micros: plain("sales_revenue_micros", sales("credited")),
  unverified_conversions: { name: "unverified_conversions", ...orders("NOT verified") },
  unverified_sales_revenue_micros: plain("unverified_sales_revenue_micros", sales("NOT verified")),
  uncredited_conversions: { name: "uncredited_conversions", ...orders("NOT credited") },
  uncredited_sales_revenue_micros: plain("uncredited_sales_revenue_micros", sales("NOT credited")),
};
const CREDIT_MEASURES_IN_ORDER: readonly Measure[] = CREDIT_MEASURES.map((name) => CREDIT[name]);

/** The order-count states, which live in order_rollups and are read with uniqExactMerge; every other measure is summed from report_rollups. */
const STATE_MEASURES = new Set(["conversions", "unverified_conversions", "uncredited_conversions"]);
export const ALL_MEASURES = [...EVENT_MEASURES, ...CREDIT_MEASURES_IN_ORDER].map((m) => m.name);
const SUMMED: readonly Measure[] = [...EVENT_MEASURES, ...CREDIT_MEASURES_IN_ORDER].filter((m) => !STATE_MEASURES.has(m.name));
const STATES: readonly Measure[] = CREDIT_MEASURES_IN_ORDER.filter((m) => STATE_MEASURES.has(m.name));
/** Each rollup table and the measures it holds. */
export const ROLLUP_TABLES = [
  { table: "report_rollups", measures: SUMMED },
  { table: "order_rollups", measures: STATES },
] as const;
export type RollupTable = (typeof ROLLUP_TABLES)[number]["table"];

/** Raw rows whose `column` falls on the days {firstDay:Date} to {lastDay:Date}, inclusive, UTC. */
const onDays = (column: string) => `${column} >= toDateTime64({firstDay:Date}, 3, 'UTC') AND ${column} < toDateTime64({lastDay:Date} + 1, 3, 'UTC')`;

/** One side's measures as rows (day as text, key, side, measure, value) of `source`, for the comparison below. */
const unpivot = (source: string, measures: readonly Measure[], side: "stored" | "recounted") =>
  `SELECT toString(day) AS day_text, ${NOT_DAY}, '${side}' AS side, m.1 AS measure, m.2 AS value
     FROM (${source})
    ARRAY JOIN [${measures.map((m) => `('${m.name}', toInt128(m_${m.name}))`).join(", ")}] AS m`;

const recountOf = (table: "ad_events" | "attributions", time: string, measures: readonly Measure[]) =>
  `SELECT toDate(${time}) AS day, ${NOT_DAY}, ${measures.map((m) => `${m.value} AS m_${m.name}`).join(", ")}
     FROM ${table} WHERE ${onDays(time)} GROUP BY ${KEY}`;

const stored = (table: RollupTable, measures: readonly Measure[]) =>
  `SELECT ${KEY}, ${measures.map(({ name }) => `${STATE_MEASURES.has(name) ? "uniqExactMerge" : "sum"}(${name}) AS m_${name}`).join(", ")}
     FROM ${table} WHERE day BETWEEN {firstDay:Date} AND {lastDay:Date} GROUP BY ${KEY}`;

/**
 * Every figure of the rollups over the days that differs from the recount, one row each in the
 * shape of RollupDifference, named by the table that holds it. Both sides are unpivoted and summed
 * per key and measure, so a key either side lacks reads 0 there (no join, whose missing side
 * could hide a key).
 */
export const VERIFY_ROLLUPS = `
SELECT if(measure IN (${[...STATE_MEASURES].map((name) => `'${name}'`).join(", ")}), 'order_rollups', 'report_rollups') AS "table",
       day_text AS day, ${NOT_DAY}, measure,
       toString(sumIf(value, side = 'stored')) AS stored, toString(sumIf(value, side = 'recounted')) AS recounted
  FROM (
    ${ROLLUP_TABLES.map(({ table, measures }) => unpivot(stored(table, measures), measures, "stored")).join("\n    UNION ALL\n    ")}
    UNION ALL
    ${unpivot(recountOf("ad_events", "created_at", EVENT_MEASURES), EVENT_MEASURES, "recounted")}
    UNION ALL
    ${unpivot(recountOf("attributions", "placed_at", CREDIT_MEASURES_IN_ORDER), CREDIT_MEASURES_IN_ORDER, "recounted")}
  )
 GROUP BY day_text, ${NOT_DAY}, measure
HAVING stored != recounted
 ORDER BY day_text, ${NOT_DAY}, measure`;

// A staging table's inserts: never taken for a duplicate of an earlier block, and on a cluster
// written through to the shards before the statement returns (not queued), as the swap needs.
const STAGING_INSERT = "insert_deduplicate = 0, distributed_foreground_insert = 1";

/**
 * The rows the materialized views would have inserted into `target` for the days' raw rows, into
 * `staging` (a rebuild's staging table shaped as `target`).
 */
export function recountInto(target: RollupTable, staging: string): string[] {
  const insert = (source: "ad_events" | "attributions", time: string, measures: readonly Measure[]) =>
    `INSERT INTO ${staging} (${KEY}, ${measures.map((m) => m.name).join(", ")})
     SELECT toDate(${time}) AS day, ${NOT_DAY}, ${measures.map((m) => `${m.state} AS ${m.name}`).join(", ")}
       FROM ${source} WHERE ${onDays(time)} GROUP BY ${KEY}
     SETTINGS ${STAGING_INSERT}`;
  if (target === "order_rollups") return [insert("attributions", "placed_at", STATES)];
  return [
    insert("ad_events", "created_at", EVENT_MEASURES),
    insert(
      "attributions",
      "placed_at",
      CREDIT_MEASURES_IN_ORDER.filter((m) => !STATE_MEASURES.has(m.name)),
    ),
  ];
}

/** Copies the month's rows of `target` outside the days asked into `staging`, as they are (states included). */
export const copyOtherDays = (target: RollupTable, staging: string) =>
  `INSERT INTO ${staging} SELECT * FROM ${target}
    WHERE toYYYYMM(day) = toYYYYMM({firstDay:Date}) AND day NOT BETWEEN {firstDay:Date} AND {lastDay:Date}
   SETTINGS ${STAGING_INSERT}`;

/** How many report rows (keys) `table` holds on the days. */
export const keysOnDays = (table: string) =>
  `SELECT count() AS n FROM (SELECT 1 FROM ${table} WHERE day BETWEEN {firstDay:Date} AND {lastDay:Date} GROUP BY ${KEY})`;

/**
 * A staging table `local` shaped as the rollup table `targetLocal` (columns, partitions, sorting
 * key; both rollup tables have the same), for a rebuild to fill and swap in with REPLACE
 * PARTITION, which needs all three the same, and the projections too, which CREATE ... AS copies
 * (their tables' setting for them is not copied, hence SETTINGS); `engine`: the schema's engine for
 * it (Replicated on a cluster, with a path of its own).
 */
export const createStaging = (local: string, targetLocal: string, onCluster: string, engine: string) =>
  `CREATE TABLE ${local}${onCluster} AS ${targetLocal} ENGINE = ${engine}
   PARTITION BY toYYYYMM(day) ORDER BY (advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name)
   SETTINGS deduplicate_merge_projection_mode = 'rebuild'`;

export const dropTable = (name: string, onCluster: string) => `DROP TABLE IF EXISTS ${name}${onCluster} SYNC`;

/** Swaps the month {partition:String} (YYYYMM) of a rollup table for the staging table's. */
export const replacePartition = (rollupsLocal: string, stagingLocal: string, onCluster: string) =>
  `ALTER TABLE ${rollupsLocal}${onCluster} REPLACE PARTITION ID {partition:String} FROM ${stagingLocal}`;

/** A table's definition, whose TTL says how long its raw rows are kept. */
export const TABLE_DEFINITION = "SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = {name:String}";
