// Hand-written SQL: click- and view-through credit, units sold and converted clicks, the figures
// Postgres's report tables gained (store/postgres/rollup-tables.sql.ts, CREDIT_SUMS). report_rollups
// sums the value of lines credited to a click and the units of credited lines (in millionths:
// round(quantity × 10⁶), which rounds half to even on Float64 as Postgres's float8 round does);
// order_rollups keeps the distinct orders with a line credited to a click as a uniqExact state,
// as it keeps every order count.
// A converted click counts once however many orders it leads to, on its own day and row (the
// touch's key, the click's day), not on the order's: a view of its own writes order_rollups rows
// keyed by toDate(event_created_at) with a uniqExact state of the click's event id, so a click
// credited again by a later order adds nothing, and any grain's merge counts each click once. A
// second view, rather than one view emitting both days per line, keeps each view's key one
// time column; its rows carry empty order states, which merge as nothing. Both views of an
// insert write order_rollups under the shipper's deduplication token: since ClickHouse 24.7 each
// view's blocks have tokens of their own (the view's name added), so neither is taken for a
// duplicate of the other (chdb's tests write both).
// History: attributions already there are counted into the new columns. The order states are
// inserted as they are (a state counts an id once, however often merged), as migration 2 did. The
// sums would count twice if inserted twice (a migration cut short and run again, or two processes
// migrating at start), so they are inserted as the difference between what the attributions
// recount to and what report_rollups holds, per key, and only where it is missing (positive):
// the views count attributions arriving from the MODIFY QUERY on, and the difference, taken
// while no writer adds rows (`alone`: migrate.sql.ts runs it as the rollups' only writer), is
// the attributions counted before it, whatever an earlier run already added. An
// ALTER ... UPDATE could not set them: a key has as many rows as merges have not combined yet.
// Last, the publisher_days projections (migration 3) are made again with the new columns, so
// publisher and network reads asking for them still read the projection.
import type { Schema } from "../schema";
import { PUBLISHER_DAYS_ORDER_STATES, PUBLISHER_DAYS_SUMS } from "./0003-publisher-projections.sql";

const KEY = "day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name";
const NOT_DAY = "publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name";
const CLICK_CREDIT = "credited AND event_kind = 'click'";

/** The new sums of a set of attributions, as attributions_to_rollups writes them. */
const CLICK_SALES = `sumIf(toInt128(total_value_micros), ${CLICK_CREDIT})`;
const UNITS = "sumIf(toInt128(round(quantity * 1000000)), credited)";

// In the order they are applied: the columns before the views that write them, the views before
// the history, so no attribution is left uncounted.
export function statements(s: Schema): string[] {
  const attributions = s.local("attributions");
  const orders = s.local("order_rollups");
  const addSums = (table: string) =>
    `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS sales_revenue_click_micros SimpleAggregateFunction(sum, Int128),
       ADD COLUMN IF NOT EXISTS units_sold_micros SimpleAggregateFunction(sum, Int128)`;
  const addStates = (table: string) =>
    `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS conversions_click AggregateFunction(uniqExact, UUID),
       ADD COLUMN IF NOT EXISTS converted_clicks AggregateFunction(uniqExact, UUID)`;
  const convertedClicks = (source: string) =>
    `SELECT toDate(event_created_at) AS day, ${NOT_DAY}, uniqExactState(event_id) AS converted_clicks
       FROM ${source}
      WHERE ${CLICK_CREDIT}
      GROUP BY ${KEY}`;
  return [
    ...s.withColumns("report_rollups").map(addSums),
    ...s.withColumns("order_rollups").map(addStates),

    `ALTER TABLE attributions_to_rollups${s.onCluster} MODIFY QUERY
     SELECT toDate(placed_at) AS day, ${NOT_DAY},
            countIf(credited) AS attributed_items,
            sumIf(toInt128(total_value_micros), credited) AS sales_revenue_micros,
            sumIf(toInt128(total_value_micros), NOT verified) AS unverified_sales_revenue_micros,
            sumIf(toInt128(total_value_micros), NOT credited) AS uncredited_sales_revenue_micros,
            ${CLICK_SALES} AS sales_revenue_click_micros,
            ${UNITS} AS units_sold_micros
       FROM ${attributions}
      GROUP BY ${KEY}`,

    `ALTER TABLE attributions_to_order_rollups${s.onCluster} MODIFY QUERY
     SELECT toDate(placed_at) AS day, ${NOT_DAY},
            uniqExactStateIf(conversion_id, credited) AS conversions,
            uniqExactStateIf(conversion_id, NOT verified) AS unverified_conversions,
            uniqExactStateIf(conversion_id, NOT credited) AS uncredited_conversions,
            uniqExactStateIf(conversion_id, ${CLICK_CREDIT}) AS conversions_click
       FROM ${attributions}
      GROUP BY ${KEY}`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_to_converted_clicks${s.onCluster} TO ${orders} AS
     ${convertedClicks(attributions)}`,

    // The order states of the attributions already there, through the Distributed tables on a
    // cluster (one statement fills every shard, written before it returns), as migration 2 did.
    `INSERT INTO order_rollups (${KEY}, conversions_click)
     SELECT toDate(placed_at) AS day, ${NOT_DAY}, uniqExactState(conversion_id) AS conversions_click
       FROM attributions
      WHERE ${CLICK_CREDIT}
      GROUP BY ${KEY}
     SETTINGS distributed_foreground_insert = 1`,
    `INSERT INTO order_rollups (${KEY}, converted_clicks)
     ${convertedClicks("attributions")}
     SETTINGS distributed_foreground_insert = 1`,

    ...projections(s, PUBLISHER_DAYS_COLUMNS),
  ];
}

/** The columns of publisher_days as this migration makes it: report_rollups' sums, order_rollups' states (migrations 5 and 6 add more). */
export const PUBLISHER_DAYS_COLUMNS = {
  report_rollups: [...PUBLISHER_DAYS_SUMS, "sales_revenue_click_micros", "units_sold_micros"],
  order_rollups: [...PUBLISHER_DAYS_ORDER_STATES, "conversions_click", "converted_clicks"],
};

/** The publisher_days projection of each rollup table made again over `columns`, and built for the parts already there. */
export function projections(s: Schema, columns: typeof PUBLISHER_DAYS_COLUMNS): string[] {
  const aggregates = {
    report_rollups: columns.report_rollups.map((column) => `sum(${column})`),
    order_rollups: columns.order_rollups.map((column) => `uniqExactMerge(${column})`),
  };
  return Object.entries(aggregates).flatMap(([name, selected]) => {
    const table = `${s.local(name)}${s.onCluster}`;
    return [
      `ALTER TABLE ${table} DROP PROJECTION IF EXISTS publisher_days`,
      `ALTER TABLE ${table} ADD PROJECTION IF NOT EXISTS publisher_days
         (SELECT publisher_id, day, advertiser_id, ${selected.join(", ")} GROUP BY publisher_id, day, advertiser_id)`,
      `ALTER TABLE ${table} MATERIALIZE PROJECTION publisher_days SETTINGS mutations_sync = 2`,
    ];
  });
}

/**
 * The sums of the attributions already there, where report_rollups lacks them: per key, the
 * attributions' recount less what report_rollups holds, each figure only where positive (a key
 * whose raw rows the TTL has dropped holds more than they recount to, and keeps it). Only right
 * with no writer adding rows meanwhile: run as the rollups' only writer, and only when there are
 * attributions (once `statements` has run, every attribution arriving later is the views' to count).
 * Without deduplication: a block like one inserted before is no less missing.
 */
export const alone = {
  needed: "SELECT count() AS n FROM (SELECT 1 FROM attributions LIMIT 1)",
  statements: (_s: Schema): string[] => [
    `INSERT INTO report_rollups (${KEY}, sales_revenue_click_micros, units_sold_micros)
     SELECT ${KEY}, greatest(sum(click_sales), 0) AS sales_revenue_click_micros, greatest(sum(units), 0) AS units_sold_micros
       FROM (
         SELECT toDate(placed_at) AS day, ${NOT_DAY}, ${CLICK_SALES} AS click_sales, ${UNITS} AS units
           FROM attributions
          GROUP BY ${KEY}
         UNION ALL
         SELECT ${KEY}, -sum(sales_revenue_click_micros), -sum(units_sold_micros)
           FROM report_rollups
          WHERE day >= (SELECT toDate(min(placed_at)) FROM attributions)
          GROUP BY ${KEY}
       )
      GROUP BY ${KEY}
     HAVING sales_revenue_click_micros > 0 OR units_sold_micros > 0
     SETTINGS distributed_foreground_insert = 1, insert_deduplicate = 0`,
  ],
};
