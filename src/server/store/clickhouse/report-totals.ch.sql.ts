// Hand-written SQL: the report figures summed from ClickHouse's rollups for a range and a scope,
// one row per key of a report's grain, for the Postgres listing statements to join to their
// accounts, campaigns and ads (store/postgres/rollup-totals.sql.ts, `given`). Traffic, spend and
// sales are sums of report_rollups; distinct orders are uniqExactMerge of order_rollups' states,
// which is the exact count of distinct orders for whatever rows are merged: so each grain's order
// count is the one Postgres keeps a table of its own for (an advertiser's, a publisher's across
// advertisers, a day's, an ad's within a publisher's scope). The two tables are read at once with
// the same conditions and joined per key here. Parts may still be unmerged: every read groups.
// Column names and conditions are fixed text from the lists below; every value is a parameter.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import type { MeasuredFigures } from "@/server/store/postgres/detailed-report.sql";
import { invalidEventsSum } from "@/server/store/postgres/rollup-tables";
import type { Figure, GivenFigures, KeyedFigures, TotalsDimension } from "@/server/store/postgres/rollup-totals.sql";
import type { InvalidTrafficDay } from "@/server/store/report-rows";
import { selectRows } from "./client";

type OrderFigure = "conversions" | "unverified_conversions" | "uncredited_conversions";
type SumFigure = Exclude<Figure, OrderFigure>;

const FIGURE_SUMS: Record<SumFigure, string> = {
  impressions: "sum(r.impressions)",
  views: "sum(r.views)",
  clicks: "sum(r.clicks)",
  spend_micros: "sum(r.spend_micros)",
  duplicate_events: "sum(r.duplicate_events)",
  bot_events: "sum(r.bot_events)",
  invalid_events: `sum(${invalidEventsSum("r")})`,
  sales_revenue_micros: "sum(r.sales_revenue_micros)",
  unverified_sales_revenue_micros: "sum(r.unverified_sales_revenue_micros)",
  uncredited_sales_revenue_micros: "sum(r.uncredited_sales_revenue_micros)",
};
const ORDER_FIGURES: readonly OrderFigure[] = ["conversions", "unverified_conversions", "uncredited_conversions"];

/** What a report reads of each rollup table, and the figures of the other that a key it lacks there reads as 0. */
const READS = [
  {
    table: "report_rollups",
    selected: Object.entries(FIGURE_SUMS)
      .map(([figure, sum]) => `${sum} AS ${figure}`)
      .join(", "),
    absent: ORDER_FIGURES,
  },
  {
    table: "order_rollups",
    selected: ORDER_FIGURES.map((figure) => `uniqExactMerge(r.${figure}) AS ${figure}`).join(", "),
    absent: Object.keys(FIGURE_SUMS) as SumFigure[],
  },
] as const;

/**
 * `statement` over each rollup table (as `r`) with its figures selected, both run at once, their
 * rows joined by `keyOf`. Every key of order_rollups has a report_rollups row too (both views
 * read the same attributions), but a key either side lacks still comes out, its missing figures 0.
 */
async function fromBothTables<Row extends GivenFigures>(
  statement: (table: string, selected: string) => string,
  params: Record<string, unknown>,
  keyOf: (row: Row) => string,
): Promise<Row[]> {
  const sides = await Promise.all(READS.map(({ table, selected }) => selectRows<Row>(statement(table, selected), params)));
  const joined = new Map<string, Row>();
  sides.forEach((rows, side) => {
    for (const row of rows) {
      const key = keyOf(row);
      const other = joined.get(key);
      if (other) Object.assign(other, row);
      else joined.set(key, { ...row, ...Object.fromEntries(READS[side]!.absent.map((figure) => [figure, "0"])) });
    }
  });
  return [...joined.values()];
}

type NarrowedColumn = "advertiser_id" | "publisher_id" | "campaign_id" | "ad_id";

/**
 * Which rows of the rollups to sum: the days of a range (inclusive, UTC) and conditions on
 * key columns, each one value or a list of values; a null or undefined value is no condition.
 * Several conditions on one column must all hold (a scope's advertiser and a requested one).
 */
export interface RollupRows {
  range: { startDate: string; endDate: string };
  where: readonly (readonly [NarrowedColumn, string | readonly string[] | null | undefined])[];
}

/** The WHERE clause of `rows` over a rollup table as `r`, and its parameters. */
function whereOf(rows: RollupRows, extra: RollupRows["where"] = []): { clause: string; params: Record<string, unknown> } {
  const conditions = ["r.day BETWEEN {startDate:Date} AND {endDate:Date}"];
  const params: Record<string, unknown> = { startDate: rows.range.startDate, endDate: rows.range.endDate };
  [...rows.where, ...extra].forEach(([column, value], index) => {
    if (value === null || value === undefined) return;
    const name = `where${index}`;
    conditions.push(typeof value === "string" ? `r.${column} = {${name}:String}` : `r.${column} IN {${name}:Array(String)}`);
    params[name] = value;
  });
  return { clause: conditions.join(" AND "), params };
}

const KEY_OF: Record<TotalsDimension, string> = {
  advertiser_id: "r.advertiser_id",
  publisher_id: "r.publisher_id",
  campaign_id: "r.campaign_id",
  ad_id: "r.ad_id",
  day: "r.day",
};

/** Each key of `dimension` with rows among `rows`, and its figures. */
export async function keyedFigures(dimension: TotalsDimension, rows: RollupRows): Promise<KeyedFigures[]> {
  const { clause, params } = whereOf(rows);
  return fromBothTables<KeyedFigures>(
    (table, selected) => `SELECT ${KEY_OF[dimension]} AS key, ${selected} FROM ${table} AS r WHERE ${clause} GROUP BY key`,
    params,
    (row) => row.key,
  );
}

/**
 * The detailed report's rows among `rows`: each campaign (or ad) and day over every publisher
 * (publisher_id ''), and for the campaigns of `networkCampaigns` each sub-publisher's share too.
 */
export async function measuredFigures(grain: "campaign" | "ad", rows: RollupRows, networkCampaigns: readonly string[]): Promise<MeasuredFigures[]> {
  const key = grain === "campaign" ? "r.campaign_id" : "r.ad_id";
  const totals = whereOf(rows);
  const totalRows = (table: string, selected: string) => `SELECT r.day AS day, ${key} AS key, '' AS row_publisher, ${selected}
       FROM ${table} AS r WHERE ${totals.clause} GROUP BY day, key, row_publisher`;
  const shares = whereOf(rows, [["campaign_id", networkCampaigns]]);
  const shareRows = (table: string, selected: string) => `SELECT r.day AS day, ${key} AS key, r.publisher_id AS row_publisher, ${selected}
       FROM ${table} AS r WHERE ${shares.clause} GROUP BY day, key, row_publisher`;
  const measured = await fromBothTables<Measured>(
    (table, selected) => (networkCampaigns.length === 0 ? totalRows(table, selected) : `${totalRows(table, selected)} UNION ALL ${shareRows(table, selected)}`),
    networkCampaigns.length === 0 ? totals.params : { ...totals.params, ...shares.params },
    (row) => JSON.stringify([row.day, row.key, row.row_publisher]),
  );
  return rename(measured);
}

// The publisher of a measured row is named apart in ClickHouse: an alias publisher_id would stand
// for the column in the WHERE clause too.
type Measured = Omit<MeasuredFigures, "publisher_id"> & { row_publisher: string };
const rename = (rows: Measured[]): MeasuredFigures[] => rows.map(({ row_publisher, ...row }) => ({ ...row, publisher_id: row_publisher }));

const REASON_SUMS = FILTERED_STATUSES.map(({ column }) => `sum(r.${column}) AS ${column}`).join(", ");

/** Per day with rows among `rows`: counted events and each filtered reason, as numbers. */
export async function invalidTrafficDays(rows: RollupRows): Promise<InvalidTrafficDay[]> {
  const { clause, params } = whereOf(rows);
  const found = await selectRows<Record<string, string>>(
    `SELECT r.day AS day, sum(r.impressions + r.views + r.clicks) AS counted_events, ${REASON_SUMS}
       FROM report_rollups AS r
      WHERE ${clause}
      GROUP BY day`,
    params,
  );
  return found.map((row) => {
    const day: Record<string, string | number> = { day: row.day! };
    for (const [column, value] of Object.entries(row)) if (column !== "day") day[column] = Number(value);
    return day as InvalidTrafficDay;
  });
}
