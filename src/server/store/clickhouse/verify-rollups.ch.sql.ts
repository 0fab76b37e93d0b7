// Hand-written SQL: ClickHouse's report rollups (report_rollups' sums and order_rollups' distinct
// order states) recounted from its raw ad_events and attributions (the consistency check), rebuilt
// from them (a repair), and how far back the raw rows are all still there (their TTL). The recount
// counts what the materialized views of migrations/0001-settled-events.ts, 0002-order-rollups.ts,
// 0004-click-credit.ts, 0005-halo-credit.ts and 0006-new-to-brand.ts count, with the statuses and
// credit measures Postgres's check uses (store/postgres/rollup-tables.sql.ts), so both checks report
// the same measures: halo lines only in the halo measures, and those only of credited orders;
// new-to-brand ones as their lines say (Postgres's attribution decides, the line carries it). Days
// are `{name:Date}` parameters; the rest of the text comes from the fixed lists below.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { CREDIT_MEASURES, ROLLUP_KEY } from "@/server/store/postgres/rollup-tables.sql";
import { ORDER_KEYS_ORDER, UTC_KEY_VIEWS } from "./migrations/0011-order-keys.sql";
import { CLICK_CREDIT, HALO_CREDIT, keyCount, NEW_TO_BRAND, type OrderFigure, SKU, SKU_CREDIT } from "./order-keys.sql";

const KEY = ROLLUP_KEY.join(", ");
const NOT_DAY = ROLLUP_KEY.filter((column) => column !== "day").join(", ");

// Each measure of the events' and the attributions' views: as a value (the recount) and as what
// the view inserts into its rollup table (the rebuild); one list, so the two cannot differ.
// `merged`: a uniqExact state of order_rollups, read with uniqExactMerge; the rest are sums of
// report_rollups.
interface Measure {
  name: string;
  value: string;
  state: string;
  merged: boolean;
}
const plain = (name: string, value: string): Measure => ({ name, value, state: value, merged: false });
const distinct = (name: string, id: string, condition?: string): Measure =>
  condition === undefined
    ? { name, value: `uniqExact(${id})`, state: `uniqExactState(${id})`, merged: true }
    : { name, value: `uniqExactIf(${id}, ${condition})`, state: `uniqExactStateIf(${id}, ${condition})`, merged: true };

const EVENT_MEASURES: readonly Measure[] = [
  plain("impressions", "countIf(status = 'counted' AND kind = 'impression')"),
  plain("views", "countIf(status = 'counted' AND kind = 'view')"),
  plain("clicks", "countIf(status = 'counted' AND kind = 'click')"),
  plain("spend_micros", "sum(spend_micros)"),
  ...FILTERED_STATUSES.map(({ status, column }) => plain(column, `countIf(status = '${status}')`)),
];

// Lines of the campaign's own SKU count in every measure but the halo ones, which count halo lines.
const orders = (name: string, condition: string) => distinct(name, "conversion_id", condition);
const sales = (condition: string) => `sumIf(toInt128(total_value_micros), ${condition})`;
const CREDIT: Record<(typeof CREDIT_MEASURES)[number], Measure> = {
  attributed_items: plain("attributed_items", `countIf(${SKU_CREDIT})`),
  conversions: orders("conversions", SKU_CREDIT),
  sales_revenue_micros: plain("sales_revenue_micros", sales(SKU_CREDIT)),
  unverified_conversions: orders("unverified_conversions", `${SKU} AND NOT verified`),
  unverified_sales_revenue_micros: plain("unverified_sales_revenue_micros", sales(`${SKU} AND NOT verified`)),
  uncredited_conversions: orders("uncredited_conversions", `${SKU} AND NOT credited`),
  uncredited_sales_revenue_micros: plain("uncredited_sales_revenue_micros", sales(`${SKU} AND NOT credited`)),
  conversions_click: orders("conversions_click", CLICK_CREDIT),
  sales_revenue_click_micros: plain("sales_revenue_click_micros", sales(CLICK_CREDIT)),
  // round() of a Float64 rounds half to even, as Postgres's round of a float8 does.
  units_sold_micros: plain("units_sold_micros", `sumIf(toInt128(round(quantity * 1000000)), ${SKU_CREDIT})`),
  // Of the clicks source below, whose rows are the lines credited to clicks for their own SKU alone.
  converted_clicks: distinct("converted_clicks", "event_id"),
  halo_conversions: orders("halo_conversions", HALO_CREDIT),
  halo_sales_revenue_micros: plain("halo_sales_revenue_micros", sales(HALO_CREDIT)),
  ntb_conversions: orders("ntb_conversions", NEW_TO_BRAND),
  ntb_sales_revenue_micros: plain("ntb_sales_revenue_micros", sales(NEW_TO_BRAND)),
};

/**
 * Raw rows and what they count to: each row on the UTC day of its `time` (within the days asked),
 * narrowed by `where`. A converted click counts on its own day, each once however many lines it
 * earned credit for; every touch precedes its order (attribution looks back from placed_at), so
 * the lines of the days' clicks were all placed from the first day on, which prunes the
 * attributions' partitions before it.
 */
interface Source {
  table: "ad_events" | "attributions";
  time: string;
  where?: string;
  measures: readonly Measure[];
}
const CLICKS_PLACED_FROM = "placed_at >= toDateTime64({firstDay:Date}, 3, 'UTC')";
const SOURCES: readonly Source[] = [
  { table: "ad_events", time: "created_at", measures: EVENT_MEASURES },
  { table: "attributions", time: "placed_at", measures: CREDIT_MEASURES.filter((name) => name !== "converted_clicks").map((name) => CREDIT[name]) },
  {
    table: "attributions",
    time: "event_created_at",
    where: `${CLICK_CREDIT} AND ${CLICKS_PLACED_FROM}`,
    measures: [CREDIT.converted_clicks],
  },
];

const MEASURES: readonly Measure[] = SOURCES.flatMap((source) => source.measures);
export const ALL_MEASURES = MEASURES.map((m) => m.name);
/** Each rollup table and its sorting key (a rebuild's staging table has the same). */
export const ROLLUP_TABLES = [
  { table: "report_rollups", order: "advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name" },
  { table: "order_rollups", order: "advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name" },
  { table: "order_keys", order: ORDER_KEYS_ORDER },
] as const;
export type RollupTable = (typeof ROLLUP_TABLES)[number]["table"];
const measuresOf = (table: "report_rollups" | "order_rollups") => MEASURES.filter((m) => m.merged === (table === "order_rollups"));

/** Raw rows whose `column` falls on the days {firstDay:Date} to {lastDay:Date}, inclusive, UTC. */
const onDays = (column: string) => `${column} >= toDateTime64({firstDay:Date}, 3, 'UTC') AND ${column} < toDateTime64({lastDay:Date} + 1, 3, 'UTC')`;

/** One side's measures as rows (day as text, key, side, measure, value) of `source`, for the comparison below. */
const unpivot = (source: string, measures: readonly Measure[], side: "stored" | "recounted") =>
  `SELECT toString(day) AS day_text, ${NOT_DAY}, '${side}' AS side, m.1 AS measure, m.2 AS value
     FROM (${source})
    ARRAY JOIN [${measures.map((m) => `('${m.name}', toInt128(m_${m.name}))`).join(", ")}] AS m`;

/** The days' raw rows of `source`, per key, with `measures` (value or state) each named by `as`. */
const recountOf = ({ table, time, where }: Source, measures: readonly Measure[], expression: "value" | "state", as: (m: Measure) => string) =>
  `SELECT toDate(${time}) AS day, ${NOT_DAY}, ${measures.map((m) => `${m[expression]} AS ${as(m)}`).join(", ")}
     FROM ${table} WHERE ${onDays(time)}${where ? ` AND ${where}` : ""} GROUP BY ${KEY}`;

const stored = (table: "report_rollups" | "order_rollups") =>
  `SELECT ${KEY}, ${measuresOf(table)
    .map(({ name, merged }) => `${merged ? "uniqExactMerge" : "sum"}(${name}) AS m_${name}`)
    .join(", ")}
     FROM ${table} WHERE day BETWEEN {firstDay:Date} AND {lastDay:Date} GROUP BY ${KEY}`;

const sides = (parts: readonly string[]) => parts.join("\n    UNION ALL\n    ");
const STORED = sides((["report_rollups", "order_rollups"] as const).map((table) => unpivot(stored(table), measuresOf(table), "stored")));
const recounted = (of: (source: Source) => readonly Measure[]) =>
  sides(
    SOURCES.filter((source) => of(source).length > 0).map((source) =>
      unpivot(
        recountOf(source, of(source), "value", (m) => `m_${m.name}`),
        of(source),
        "recounted",
      ),
    ),
  );
const RECOUNTED = recounted((source) => source.measures);
const ORDER_MEASURES = measuresOf("order_rollups")
  .map(({ name }) => `'${name}'`)
  .join(", ");

/**
 * Every figure of the rollups over the days that differs from the recount, one row each in the
 * shape of RollupDifference, named by the table that holds it. Both sides are unpivoted and summed
 * per key and measure, so a key either side lacks reads 0 there (no join, whose missing side
 * could hide a key).
 */
export const VERIFY_ROLLUPS = `
SELECT if(measure IN (${ORDER_MEASURES}), 'order_rollups', 'report_rollups') AS "table",
       day_text AS day, ${NOT_DAY}, measure,
       toString(sumIf(value, side = 'stored')) AS stored, toString(sumIf(value, side = 'recounted')) AS recounted
  FROM (
    ${STORED}
    UNION ALL
    ${RECOUNTED}
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
  if (target === "order_keys") {
    return UTC_KEY_VIEWS.map(
      (view) => `INSERT INTO ${staging} (${KEY}, id, flags)
     ${view.select("attributions", `${onDays(view.time)}${view.time === "event_created_at" ? ` AND ${CLICKS_PLACED_FROM}` : ""}`)}
     SETTINGS ${STAGING_INSERT}`,
    );
  }
  return SOURCES.flatMap((source) => {
    const measures = source.measures.filter((m) => m.merged === (target === "order_rollups"));
    if (measures.length === 0) return [];
    return [
      `INSERT INTO ${staging} (${KEY}, ${measures.map((m) => m.name).join(", ")})
     ${recountOf(source, measures, "state", (m) => m.name)}
     SETTINGS ${STAGING_INSERT}`,
    ];
  });
}

/** Copies the month's rows of `target` outside the days asked into `staging`, as they are (states included). */
export const copyOtherDays = (target: RollupTable, staging: string) =>
  `INSERT INTO ${staging} SELECT * FROM ${target}
    WHERE toYYYYMM(day) = toYYYYMM({firstDay:Date}) AND day NOT BETWEEN {firstDay:Date} AND {lastDay:Date}
   SETTINGS ${STAGING_INSERT}`;

// The order keys' figures (migration 11) against the same recount of the distinct orders.
const ORDER_KEY_MEASURES = measuresOf("order_rollups");
const STORED_KEYS = `SELECT ${KEY}, ${ORDER_KEY_MEASURES.map(({ name }) => `${keyCount(name as OrderFigure, "k")} AS m_${name}`).join(", ")}
     FROM order_keys AS k WHERE k.day BETWEEN {firstDay:Date} AND {lastDay:Date} GROUP BY ${KEY}`;

/** Every figure of order_keys over the days that differs from the recount, as VERIFY_ROLLUPS gives them. */
export const VERIFY_ORDER_KEYS = `
SELECT 'order_keys' AS "table", day_text AS day, ${NOT_DAY}, measure,
       toString(sumIf(value, side = 'stored')) AS stored, toString(sumIf(value, side = 'recounted')) AS recounted
  FROM (
    ${unpivot(STORED_KEYS, ORDER_KEY_MEASURES, "stored")}
    UNION ALL
    ${recounted((source) => source.measures.filter((m) => m.merged))}
  )
 GROUP BY day_text, ${NOT_DAY}, measure
HAVING stored != recounted
 ORDER BY day_text, ${NOT_DAY}, measure`;

/** How many report rows (keys) `table` holds on the days. */
export const keysOnDays = (table: string) =>
  `SELECT count() AS n FROM (SELECT 1 FROM ${table} WHERE day BETWEEN {firstDay:Date} AND {lastDay:Date} GROUP BY ${KEY})`;

/**
 * A staging table `local` shaped as the rollup table `targetLocal` (columns, partitions, sorting
 * key; both rollup tables have the same), for a rebuild to fill and swap in with REPLACE
 * PARTITION, which needs all three the same (`order`: the target's sorting key), and the projections too, which CREATE ... AS copies
 * (their tables' setting for them is not copied, hence SETTINGS); `engine`: the schema's engine for
 * it (Replicated on a cluster, with a path of its own).
 */
export const createStaging = (local: string, targetLocal: string, onCluster: string, engine: string, order: string) =>
  `CREATE TABLE ${local}${onCluster} AS ${targetLocal} ENGINE = ${engine}
   PARTITION BY toYYYYMM(day) ORDER BY (${order})
   SETTINGS deduplicate_merge_projection_mode = 'rebuild'`;

export const dropTable = (name: string, onCluster: string) => `DROP TABLE IF EXISTS ${name}${onCluster} SYNC`;

/** Swaps the month {partition:String} (YYYYMM) of a rollup table for the staging table's. */
export const replacePartition = (rollupsLocal: string, stagingLocal: string, onCluster: string) =>
  `ALTER TABLE ${rollupsLocal}${onCluster} REPLACE PARTITION ID {partition:String} FROM ${stagingLocal}`;

/** A table's definition, whose TTL says how long its raw rows are kept. */
export const TABLE_DEFINITION = "SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = {name:String}";
