// Hand-written SQL: a projection of each rollup table for the reports of a publisher or a network,
// which ask for one publisher's rows (or a network's eleven) across every advertiser: sorted
// advertiser first, such a read opened every granule of the range and merged every advertiser's
// order states to keep a few of them. `publisher_days` holds the sums (and merged order states)
// per publisher, day and advertiser, sorted publisher first: a twentieth of report_rollups' rows.
// ClickHouse picks it by itself for a read it can answer from fewer granules; a read never names
// it, and it answers only reads whose aggregates it holds, so reads sum each column on its own
// (sum(a) + sum(b), not sum(a + b)). A projection of every row sorted publisher first was tried
// too and left out: a second full copy of the rollups, written on every insert and merge, for
// reads by campaign or ad of a publisher, which no measured report needed. An aggregating table's
// projections are rebuilt when merges combine rows, hence the setting; parts written before this
// migration get theirs from the MATERIALIZE, which waits until it is done.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import type { Schema } from "../schema";

/** The columns publisher_days sums, and the order states it merges (migrations 4, 5 and 6 make it again with more). */
export const PUBLISHER_DAYS_SUMS = [
  "impressions",
  "views",
  "clicks",
  "spend_micros",
  ...FILTERED_STATUSES.map(({ column }) => column),
  "attributed_items",
  "sales_revenue_micros",
  "unverified_sales_revenue_micros",
  "uncredited_sales_revenue_micros",
];
export const PUBLISHER_DAYS_ORDER_STATES = ["conversions", "unverified_conversions", "uncredited_conversions"];

const PROJECTIONS = {
  report_rollups: PUBLISHER_DAYS_SUMS.map((column) => `sum(${column})`),
  order_rollups: PUBLISHER_DAYS_ORDER_STATES.map((column) => `uniqExactMerge(${column})`),
};

export function statements(s: Schema): string[] {
  return Object.entries(PROJECTIONS).flatMap(([name, aggregates]) => {
    const table = `${s.local(name)}${s.onCluster}`;
    return [
      `ALTER TABLE ${table} MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'`,
      `ALTER TABLE ${table} ADD PROJECTION IF NOT EXISTS publisher_days
         (SELECT publisher_id, day, advertiser_id, ${aggregates.join(", ")} GROUP BY publisher_id, day, advertiser_id)`,
      `ALTER TABLE ${table} MATERIALIZE PROJECTION publisher_days SETTINGS mutations_sync = 2`,
    ];
  });
}
