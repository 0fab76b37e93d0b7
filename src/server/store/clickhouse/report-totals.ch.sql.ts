// Hand-written SQL: the report figures summed from ClickHouse's report_rollups for a range and a
// scope, one row per key of a report's grain, for the Postgres listing statements to join to
// their accounts, campaigns and ads (store/postgres/rollup-totals.sql.ts, `given`). Traffic,
// spend and sales are sums; distinct orders are uniqExactMerge of the rows' states, which is the
// exact count of distinct orders for whatever rows are merged: so each grain's order count is the
// one Postgres keeps a table of its own for (an advertiser's, a publisher's across advertisers, a
// day's, an ad's within a publisher's scope). Parts may still be unmerged: every read groups.
// Column names and conditions are fixed text from the lists below; every value is a parameter.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import type { MeasuredFigures } from "@/server/store/postgres/detailed-report.sql";
import { invalidEventsSum } from "@/server/store/postgres/rollup-tables";
import type { Figure, KeyedFigures, TotalsDimension } from "@/server/store/postgres/rollup-totals.sql";
import type { InvalidTrafficDay } from "@/server/store/report-rows";
import { selectRows } from "./client";

const FIGURE_SUMS: Record<Figure, string> = {
  impressions: "sum(r.impressions)",
  views: "sum(r.views)",
  clicks: "sum(r.clicks)",
  spend_micros: "sum(r.spend_micros)",
  duplicate_events: "sum(r.duplicate_events)",
  bot_events: "sum(r.bot_events)",
  invalid_events: `sum(${invalidEventsSum("r")})`,
  sales_revenue_micros: "sum(r.sales_revenue_micros)",
  conversions: "uniqExactMerge(r.conversions)",
  unverified_sales_revenue_micros: "sum(r.unverified_sales_revenue_micros)",
  unverified_conversions: "uniqExactMerge(r.unverified_conversions)",
  uncredited_sales_revenue_micros: "sum(r.uncredited_sales_revenue_micros)",
  uncredited_conversions: "uniqExactMerge(r.uncredited_conversions)",
};
const FIGURES_SELECTED = Object.entries(FIGURE_SUMS)
  .map(([figure, sum]) => `${sum} AS ${figure}`)
  .join(", ");

type NarrowedColumn = "advertiser_id" | "publisher_id" | "campaign_id" | "ad_id";

/**
 * Which rows of report_rollups to sum: the days of a range (inclusive, UTC) and conditions on
 * key columns, each one value or a list of values; a null or undefined value is no condition.
 * Several conditions on one column must all hold (a scope's advertiser and a requested one).
 */
export interface RollupRows {
  range: { startDate: string; endDate: string };
  where: readonly (readonly [NarrowedColumn, string | readonly string[] | null | undefined])[];
}

/** The WHERE clause of `rows` over report_rollups as `r`, and its parameters. */
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
  return selectRows<KeyedFigures>(
    `SELECT ${KEY_OF[dimension]} AS key, ${FIGURES_SELECTED}
       FROM report_rollups AS r
      WHERE ${clause}
      GROUP BY key`,
    params,
  );
}

/**
 * The detailed report's rows among `rows`: each campaign (or ad) and day over every publisher
 * (publisher_id ''), and for the campaigns of `networkCampaigns` each sub-publisher's share too.
 */
export async function measuredFigures(grain: "campaign" | "ad", rows: RollupRows, networkCampaigns: readonly string[]): Promise<MeasuredFigures[]> {
  const key = grain === "campaign" ? "r.campaign_id" : "r.ad_id";
  const totals = whereOf(rows);
  const totalRows = `SELECT r.day AS day, ${key} AS key, '' AS row_publisher, ${FIGURES_SELECTED}
       FROM report_rollups AS r WHERE ${totals.clause} GROUP BY day, key, row_publisher`;
  if (networkCampaigns.length === 0) return rename(await selectRows<Measured>(totalRows, totals.params));
  const shares = whereOf(rows, [["campaign_id", networkCampaigns]]);
  const shareRows = `SELECT r.day AS day, ${key} AS key, r.publisher_id AS row_publisher, ${FIGURES_SELECTED}
       FROM report_rollups AS r WHERE ${shares.clause} GROUP BY day, key, row_publisher`;
  return rename(await selectRows<Measured>(`${totalRows} UNION ALL ${shareRows}`, { ...totals.params, ...shares.params }));
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
