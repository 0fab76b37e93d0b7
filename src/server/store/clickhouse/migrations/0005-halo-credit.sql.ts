// Hand-written SQL: halo credit, as Postgres's report tables count it (store/postgres/rollup-tables.sql.ts,
// CREDIT_SUMS). An attribution's `match` says how its line matched the ad: 'sku', the campaign's
// own SKU, or 'halo', another SKU the publisher's catalogue gives the same advertiser, credited
// to its latest touch because no campaign had one for the SKU itself. Halo lines count only in
// the two halo figures, and only when their order is credited: report_rollups sums their value
// (halo_sales_revenue_micros), order_rollups keeps their orders as a uniqExact state
// (halo_conversions), as it keeps every order count. Every other figure, converted clicks
// included (a click whose only credit is halo did not sell its campaign's SKU), counts sku lines
// alone, so each view reading attributions is given its query again with `match = 'sku'`.
// attributions gains the column with 'sku' as its default: parts written before this migration
// read 'sku', which they are, since no halo line could reach ClickHouse without the column (the
// shipper and the backfill name it, postgres-rows.sql.ts).
// History: none. Every attribution before this migration is a sku line, so what the views counted
// is already the sku lines' figures, and their halo sums are 0 and halo states empty, which is
// what the new columns read in parts written before them (a sum's default 0, an empty state).
// Hence no insert and no `alone` step. Migration 4's history statements count every line: right,
// as they only ever run before this migration, while every line is a sku line.
// Last, the publisher_days projections are made again with the new columns, as migration 4 did.
import type { Schema } from "../schema";
import { PUBLISHER_DAYS_COLUMNS, projections } from "./0004-click-credit.sql";

const KEY = "day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name";
const NOT_DAY = "publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name";
const SKU = "match = 'sku'";
const SKU_CREDIT = `${SKU} AND credited`;
const CLICK_CREDIT = `${SKU_CREDIT} AND event_kind = 'click'`;
const HALO_CREDIT = "match = 'halo' AND credited";

/** What attributions_to_rollups writes as this migration gives it (migration 6 adds to it). */
export const ROLLUP_VIEW_FIGURES = [
  `countIf(${SKU_CREDIT}) AS attributed_items`,
  `sumIf(toInt128(total_value_micros), ${SKU_CREDIT}) AS sales_revenue_micros`,
  `sumIf(toInt128(total_value_micros), ${SKU} AND NOT verified) AS unverified_sales_revenue_micros`,
  `sumIf(toInt128(total_value_micros), ${SKU} AND NOT credited) AS uncredited_sales_revenue_micros`,
  `sumIf(toInt128(total_value_micros), ${CLICK_CREDIT}) AS sales_revenue_click_micros`,
  `sumIf(toInt128(round(quantity * 1000000)), ${SKU_CREDIT}) AS units_sold_micros`,
  `sumIf(toInt128(total_value_micros), ${HALO_CREDIT}) AS halo_sales_revenue_micros`,
];

/** What attributions_to_order_rollups writes as this migration gives it (migration 6 adds to it). */
export const ORDER_VIEW_FIGURES = [
  `uniqExactStateIf(conversion_id, ${SKU_CREDIT}) AS conversions`,
  `uniqExactStateIf(conversion_id, ${SKU} AND NOT verified) AS unverified_conversions`,
  `uniqExactStateIf(conversion_id, ${SKU} AND NOT credited) AS uncredited_conversions`,
  `uniqExactStateIf(conversion_id, ${CLICK_CREDIT}) AS conversions_click`,
  `uniqExactStateIf(conversion_id, ${HALO_CREDIT}) AS halo_conversions`,
];

/** A view's query writing `figures` per report key from the attributions `source`, on the order's day. */
export const creditQuery = (source: string, figures: readonly string[]) =>
  `SELECT toDate(placed_at) AS day, ${NOT_DAY},
            ${figures.join(",\n            ")}
       FROM ${source}
      GROUP BY ${KEY}`;

/** The columns of publisher_days as this migration makes it (migration 6 adds more). */
export const HALO_PUBLISHER_DAYS_COLUMNS = {
  report_rollups: [...PUBLISHER_DAYS_COLUMNS.report_rollups, "halo_sales_revenue_micros"],
  order_rollups: [...PUBLISHER_DAYS_COLUMNS.order_rollups, "halo_conversions"],
};

// In the order they are applied: the columns before the views that read or write them.
export function statements(s: Schema): string[] {
  const attributions = s.local("attributions");
  return [
    ...s
      .withColumns("attributions")
      .map((table) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS match LowCardinality(String) DEFAULT 'sku' AFTER credited`),
    ...s
      .withColumns("report_rollups")
      .map((table) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS halo_sales_revenue_micros SimpleAggregateFunction(sum, Int128)`),
    ...s
      .withColumns("order_rollups")
      .map((table) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS halo_conversions AggregateFunction(uniqExact, UUID)`),

    `ALTER TABLE attributions_to_rollups${s.onCluster} MODIFY QUERY
     ${creditQuery(attributions, ROLLUP_VIEW_FIGURES)}`,

    `ALTER TABLE attributions_to_order_rollups${s.onCluster} MODIFY QUERY
     ${creditQuery(attributions, ORDER_VIEW_FIGURES)}`,

    `ALTER TABLE attributions_to_converted_clicks${s.onCluster} MODIFY QUERY
     SELECT toDate(event_created_at) AS day, ${NOT_DAY}, uniqExactState(event_id) AS converted_clicks
       FROM ${attributions}
      WHERE ${CLICK_CREDIT}
      GROUP BY ${KEY}`,

    ...projections(s, HALO_PUBLISHER_DAYS_COLUMNS),
  ];
}
