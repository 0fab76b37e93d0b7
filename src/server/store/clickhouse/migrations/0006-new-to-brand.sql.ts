// Hand-written SQL: new-to-brand, as Postgres's report tables count it (store/postgres/rollup-tables.sql.ts,
// CREDIT_SUMS). Whether a line is new to its brand is Postgres's to say: its attribution statement
// marks a credited line of the campaign's own SKU whose shopper had bought none of the
// advertiser's SKUs at the publisher in the look-back (brand_purchases, which stays in Postgres),
// and the shipper and the backfill send the flag with the line (postgres-rows.sql.ts). ClickHouse
// only counts it: report_rollups sums those lines' value (ntb_sales_revenue_micros), order_rollups
// keeps their orders as a uniqExact state (ntb_conversions), as it keeps every order count. The
// flag is only ever true on credited sku lines, but the views ask for `match = 'sku' AND credited`
// too, as Postgres's credit rows do, so no other line could count whatever it carried.
// attributions gains the column with false as its default. The two views writing the rollups
// from attributions are given their queries again: migration 5's figures unchanged, and the new
// one. The converted clicks view counts no new figure and is left as migration 5 left it.
// History: none. Every attribution before this migration is not new-to-brand, in Postgres too:
// its migration gave the lines attributed before it false, and its reports read them so. Here
// they read false (the column's default in parts written before it), so what the views counted
// needs nothing added: the new sums are 0 and the new states empty, which is what the new columns
// read in parts written before them. Hence no insert and no `alone` step.
// Last, the publisher_days projections are made again with the new columns, as migrations 4 and 5 did.
import type { Schema } from "../schema";
import { projections } from "./0004-click-credit.sql";
import { creditQuery, HALO_PUBLISHER_DAYS_COLUMNS, ORDER_VIEW_FIGURES, ROLLUP_VIEW_FIGURES } from "./0005-halo-credit.sql";

const NEW_TO_BRAND = "match = 'sku' AND credited AND new_to_brand";

/** The columns of publisher_days as this migration makes it. */
export const NTB_PUBLISHER_DAYS_COLUMNS = {
  report_rollups: [...HALO_PUBLISHER_DAYS_COLUMNS.report_rollups, "ntb_sales_revenue_micros"],
  order_rollups: [...HALO_PUBLISHER_DAYS_COLUMNS.order_rollups, "ntb_conversions"],
};

// In the order they are applied: the columns before the views that read or write them.
export function statements(s: Schema): string[] {
  const attributions = s.local("attributions");
  return [
    ...s.withColumns("attributions").map((table) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS new_to_brand Bool DEFAULT false AFTER match`),
    ...s
      .withColumns("report_rollups")
      .map((table) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS ntb_sales_revenue_micros SimpleAggregateFunction(sum, Int128)`),
    ...s
      .withColumns("order_rollups")
      .map((table) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS ntb_conversions AggregateFunction(uniqExact, UUID)`),

    `ALTER TABLE attributions_to_rollups${s.onCluster} MODIFY QUERY
     ${creditQuery(attributions, [...ROLLUP_VIEW_FIGURES, `sumIf(toInt128(total_value_micros), ${NEW_TO_BRAND}) AS ntb_sales_revenue_micros`])}`,

    `ALTER TABLE attributions_to_order_rollups${s.onCluster} MODIFY QUERY
     ${creditQuery(attributions, [...ORDER_VIEW_FIGURES, `uniqExactStateIf(conversion_id, ${NEW_TO_BRAND}) AS ntb_conversions`])}`,

    ...projections(s, NTB_PUBLISHER_DAYS_COLUMNS),
  ];
}
