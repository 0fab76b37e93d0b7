// Hand-written SQL: projections of the rollups for the reads that their sort order serves badly,
// as migration 3 gave the UTC tables publisher_days:
// - publisher_days on zoned_report_rollups and zoned_order_rollups: a publisher's or a network's
//   reports in a zone other than UTC ask for one publisher's rows (or eleven) across every
//   advertiser, and the zoned tables are sorted zone, advertiser first: without it such a read
//   opened every advertiser's part of the zone. The UTC tables' projection with `zone` first.
// - advertiser_hours on hourly_rollups and hourly_order_rollups: an advertiser's hours report sums
//   every campaign's and publisher's row of each hour of its range; the projection holds one row
//   per zone, advertiser, day and hour, the states already merged over campaigns and publishers.
// - publisher_hours on hourly_order_rollups: a publisher's or a network's hours report, by
//   publisher (and advertiser, for a report narrowed to one), for the reason publisher_days
//   exists: a publisher's month of hours merged 128 ms of order states without it, 24 ms with it.
//   Its sums read 21 ms without one, and a projection of them would hold two thirds of
//   hourly_rollups' rows, written on every insert: left out (bench/results.md).
// - campaign_days on order_rollups and zoned_order_rollups: every row, sorted campaign before day,
//   for the reads of one campaign (its page, a report filtered to it), which in the tables' order
//   find the campaign's rows of each day among every other campaign's of the advertiser.
// - ad_days on order_rollups and zoned_order_rollups: the order states merged over publishers,
//   sites and placements, per advertiser, day, campaign and ad, for an advertiser's reads by
//   campaign, ad or day (its listings, the dashboard's days): 58% of the table's rows here.
// Order states are what a read pays for: each row read is a set of order ids made in memory, and
// ClickHouse reads whole granules, so a read of a few hundred rows paid for thousands. The
// projections for narrow reads (one campaign, one advertiser's hours, a publisher's) keep
// granules of 1,024 rows (the tables' own hold 4,000 to 8,192), which is also why they are chosen:
// ClickHouse takes a projection when it reads fewer granules than the table would; ad_days,
// read over an advertiser's whole range, keeps the table's (measured in bench/results.md, "Time zones").
// ClickHouse picks a projection by itself, and only one holding every column a read names: a
// read by campaign keeps away from publisher_days and advertiser_hours. Sums are kept per column,
// so reads sum each column on their own (report-totals.ch.sql.ts). An aggregating table's
// projections are rebuilt when merges combine rows, hence the setting; parts written before this
// migration get theirs from the MATERIALIZE, which waits until it is done.
import type { Schema } from "../schema";
import { ORDER_STATE_COLUMNS, REPORT_SUM_COLUMNS } from "../zoned-rollups.sql";
import { HOURLY_ORDER_STATES, HOURLY_SUM_COLUMNS } from "./0008-hourly-rollups.sql";

interface Projection {
  table: string;
  name: string;
  /** The GROUP BY of an aggregating projection, or the ORDER BY of one holding every row (no aggregates). */
  key: readonly string[];
  aggregates: readonly string[];
  /** Rows per granule, where not the table's. */
  granularity?: number;
}

/** Rows per granule of the projections holding order states (see above). */
const STATE_GRANULES = 1024;

const sums = (columns: readonly string[]) => columns.map((column) => `sum(${column})`);
const merges = (columns: readonly string[]) => columns.map((column) => `uniqExactMerge(${column})`);
const REPORT_SUMS = sums(REPORT_SUM_COLUMNS.map(([name]) => name));
const HOURLY_SUMS = sums(HOURLY_SUM_COLUMNS);

/** Every projection this migration adds, in the order it adds them. */
export const ZONE_PROJECTIONS: readonly Projection[] = [
  { table: "zoned_report_rollups", name: "publisher_days", key: ["zone", "publisher_id", "day", "advertiser_id"], aggregates: REPORT_SUMS },
  {
    table: "zoned_order_rollups",
    name: "publisher_days",
    key: ["zone", "publisher_id", "day", "advertiser_id"],
    aggregates: merges(ORDER_STATE_COLUMNS),
    granularity: STATE_GRANULES,
  },
  { table: "hourly_rollups", name: "advertiser_hours", key: ["zone", "advertiser_id", "day", "hour"], aggregates: HOURLY_SUMS },
  {
    table: "hourly_order_rollups",
    name: "advertiser_hours",
    key: ["zone", "advertiser_id", "day", "hour"],
    aggregates: merges(HOURLY_ORDER_STATES),
    granularity: STATE_GRANULES,
  },
  {
    table: "hourly_order_rollups",
    name: "publisher_hours",
    key: ["zone", "publisher_id", "day", "hour", "advertiser_id"],
    aggregates: merges(HOURLY_ORDER_STATES),
    granularity: STATE_GRANULES,
  },
  { table: "order_rollups", name: "campaign_days", key: ["advertiser_id", "campaign_id", "day"], aggregates: [], granularity: STATE_GRANULES },
  { table: "order_rollups", name: "ad_days", key: ["advertiser_id", "day", "campaign_id", "ad_id"], aggregates: merges(ORDER_STATE_COLUMNS) },
  {
    table: "zoned_order_rollups",
    name: "ad_days",
    key: ["zone", "advertiser_id", "day", "campaign_id", "ad_id"],
    aggregates: merges(ORDER_STATE_COLUMNS),
  },
  { table: "zoned_order_rollups", name: "campaign_days", key: ["zone", "advertiser_id", "campaign_id", "day"], aggregates: [], granularity: STATE_GRANULES },
];

/** A projection's query, and its own settings. */
function definition({ key, aggregates, granularity }: Projection): string {
  const query =
    aggregates.length === 0 ? `SELECT * ORDER BY ${key.join(", ")}` : `SELECT ${key.join(", ")}, ${aggregates.join(", ")} GROUP BY ${key.join(", ")}`;
  return `(${query})${granularity ? ` WITH SETTINGS (index_granularity = ${granularity})` : ""}`;
}

export function statements(s: Schema): string[] {
  const tables = [...new Set(ZONE_PROJECTIONS.map((projection) => projection.table))];
  return [
    ...tables.map((name) => `ALTER TABLE ${s.local(name)}${s.onCluster} MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'`),
    ...ZONE_PROJECTIONS.flatMap((projection) => {
      const local = `${s.local(projection.table)}${s.onCluster}`;
      const name = projection.name;
      return [
        `ALTER TABLE ${local} ADD PROJECTION IF NOT EXISTS ${name} ${definition(projection)}`,
        `ALTER TABLE ${local} MATERIALIZE PROJECTION ${name} SETTINGS mutations_sync = 2`,
      ];
    }),
  ];
}
