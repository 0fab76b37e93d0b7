// Hand-written SQL: the report figures summed from ClickHouse's rollups for a range and a scope,
// one row per key of a report's grain, for the Postgres listing statements to join to their
// accounts, campaigns and ads (store/postgres/rollup-totals.sql.ts, `given`). Traffic, spend and
// sales are sums of report_rollups; distinct orders are counted from order_keys (uniqExactIf of
// the ids with a figure's bit), or for a range reaching before the keys' first day merged from
// order_rollups' states (uniqExactMerge): either is the exact count of distinct orders for
// whatever rows are read, so each grain's order count is the one Postgres keeps a table of its
// own for (an advertiser's, a publisher's across advertisers, a day's, an ad's within a
// publisher's scope). Converted clicks are counted the same way (each click's id, on its own day
// and row), though Postgres sums them: a click is counted once however many orders it leads to
// either way. The two tables are read at once with the same conditions and joined per key here.
// Parts may still be unmerged: every read groups.
// Column names and conditions are fixed text from the lists below; every value is a parameter.
import { FILTERED_STATUSES, INVALID_TRAFFIC_REASONS } from "@/server/core/event-status";
import type { MeasuredFigures } from "@/server/store/postgres/detailed-report.sql";
import type { Figure, GivenFigures, KeyedFigures, TotalsDimension } from "@/server/store/postgres/rollup-totals.sql";
import type { InvalidTrafficDay } from "@/server/store/report-rows";
import { selectRows } from "./client";
import { keyCount, ORDER_FIGURES, type OrderFigure } from "./order-keys.sql";
import { type RollupSource, rollupSource } from "./zoned-source.sql";

type SumFigure = Exclude<Figure, OrderFigure>;

const FIGURE_SUMS: Record<SumFigure, string> = {
  impressions: "sum(r.impressions)",
  views: "sum(r.views)",
  clicks: "sum(r.clicks)",
  spend_micros: "sum(r.spend_micros)",
  duplicate_events: "sum(r.duplicate_events)",
  bot_events: "sum(r.bot_events)",
  // Each column summed on its own: the publisher_days projection (migration 3) holds sums of columns, not of their total.
  invalid_events: INVALID_TRAFFIC_REASONS.map((reason) => `sum(r.${reason}_events)`).join(" + "),
  sales_revenue_micros: "sum(r.sales_revenue_micros)",
  unverified_sales_revenue_micros: "sum(r.unverified_sales_revenue_micros)",
  uncredited_sales_revenue_micros: "sum(r.uncredited_sales_revenue_micros)",
  sales_revenue_click_micros: "sum(r.sales_revenue_click_micros)",
  units_sold_micros: "sum(r.units_sold_micros)",
  halo_sales_revenue_micros: "sum(r.halo_sales_revenue_micros)",
  ntb_sales_revenue_micros: "sum(r.ntb_sales_revenue_micros)",
};
const ALL_FIGURES: readonly Figure[] = [...(Object.keys(FIGURE_SUMS) as SumFigure[]), ...ORDER_FIGURES];

/** What a report reads of each rollup table: the sums, and the distinct orders in either form. */
const SELECTED = {
  report_rollups: Object.entries(FIGURE_SUMS)
    .map(([figure, sum]) => `${sum} AS ${figure}`)
    .join(", "),
  order_rollups: ORDER_FIGURES.map((figure) => `uniqExactMerge(r.${figure}) AS ${figure}`).join(", "),
  order_keys: ORDER_FIGURES.map((figure) => `${keyCount(figure, "r")} AS ${figure}`).join(", "),
} as const;

/**
 * `statement` over each rollup table (as `r`) with its figures selected, joined by their `keys`
 * columns in one query: each call to ClickHouse costs milliseconds of its own, whatever it reads.
 * Every key of order_rollups has a report_rollups row too (both read the same attributions, and a
 * converted click's row is where the click itself counted), but a key either side lacks still
 * comes out (FULL JOIN), its missing figures 0.
 */
async function fromBothTables<Row extends GivenFigures>(
  statement: (table: string, selected: string) => string,
  keys: readonly string[],
  where: Pick<Where, "params" | "source" | "settings">,
): Promise<Row[]> {
  const [sums, orders] = (["report_rollups", where.source.orders] as const).map((table) => statement(where.source.from(table), SELECTED[table]));
  return selectRows<Row>(`SELECT * FROM (${sums}) AS sums FULL OUTER JOIN (${orders}) AS orders USING (${keys.join(", ")})${where.settings}`, where.params);
}

type NarrowedColumn = "advertiser_id" | "publisher_id" | "campaign_id" | "ad_id";

/**
 * Which rows of the rollups to sum: the days of a range (inclusive, local dates in `zone`) and
 * conditions on key columns, each one value or a list of values; a null or undefined value is no
 * condition. Several conditions on one column must all hold (a scope's advertiser and a requested one).
 */
export interface RollupRows {
  range: { startDate: string; endDate: string };
  /** A zone ClickHouse keeps (report_zones); UTC reads the UTC tables alone. */
  zone: string;
  where: readonly (readonly [NarrowedColumn, string | readonly string[] | null | undefined])[];
}

interface Where {
  clause: string;
  params: Record<string, unknown>;
  /** Which rows of the rollups the read sums: its zone's (zoned-source.sql.ts), named in `clause` too. */
  source: RollupSource;
  /** The statement's SETTINGS clause, or nothing. */
  settings: string;
}

/**
 * The WHERE clause of `rows` over a rollup table as `r`, its parameters and settings. Where a
 * projection of the rollups (migrations 3 and 10) may answer the read, ClickHouse picks by itself
 * the one that answers it from the fewest granules, or the table.
 */
async function whereOf(rows: RollupRows): Promise<Where> {
  const source = await rollupSource(rows.zone, rows.range.startDate);
  const conditions = ["r.day BETWEEN {startDate:Date} AND {endDate:Date}", ...source.conditions("r")];
  const params: Record<string, unknown> = { startDate: rows.range.startDate, endDate: rows.range.endDate, readZone: rows.zone };
  rows.where.forEach(([column, value], index) => {
    if (value === null || value === undefined) return;
    const name = `where${index}`;
    conditions.push(typeof value === "string" ? `r.${column} = {${name}:String}` : `r.${column} IN {${name}:Array(String)}`);
    params[name] = value;
  });
  // Weighing a table's projections costs every read a few milliseconds, whether or not one is
  // taken; only a read of one publisher's rows (publisher_days, migrations 3 and 10) or of the
  // order states (campaign_days and ad_days too) has one to take: the order keys have none.
  const byPublisher = rows.where.some(([column, value]) => column === "publisher_id" && value !== null && value !== undefined);
  const settings = byPublisher || source.orders === "order_rollups" ? "" : " SETTINGS optimize_use_projections = 0";
  return { clause: conditions.join(" AND "), params, source, settings };
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
  const where = await whereOf(rows);
  return fromBothTables<KeyedFigures>(
    (table, selected) => `SELECT ${KEY_OF[dimension]} AS key, ${selected} FROM ${table} AS r WHERE ${where.clause} GROUP BY key`,
    ["key"],
    where,
  );
}

/**
 * Each key of each of `dimensions` with rows among `rows`, and its figures, from one scan of each
 * table (GROUPING SETS): a page that shows several groupings of the same rows (a campaign's
 * totals, its days and its ads) asks ClickHouse once, where each call costs milliseconds of its
 * own whatever it reads.
 */
export async function keyedFiguresOfEach<Dimension extends TotalsDimension>(
  dimensions: readonly Dimension[],
  rows: RollupRows,
): Promise<Record<Dimension, KeyedFigures[]>> {
  const where = await whereOf(rows);
  const columns = dimensions.map((dimension, index) => `grouping(${KEY_OF[dimension]}) AS grouped_out${index}, ${KEY_OF[dimension]} AS key${index}`);
  const sets = dimensions.map((dimension) => `(${KEY_OF[dimension]})`).join(", ");
  type SetRow = KeyedFigures & Record<string, string>;
  // grouping() is 0 for the column a row is grouped by, 1 for the others.
  const setOf = (row: SetRow) => dimensions.findIndex((_, index) => String(row[`grouped_out${index}`]) === "0");
  // A row's grouping flags and keys are its identity: the columns it is not grouped by hold defaults.
  const identity = dimensions.flatMap((_, index) => [`grouped_out${index}`, `key${index}`]);
  const found = await fromBothTables<SetRow>(
    (table, selected) => `SELECT ${columns.join(", ")}, ${selected} FROM ${table} AS r WHERE ${where.clause} GROUP BY GROUPING SETS (${sets})`,
    identity,
    where,
  );
  const figures = Object.fromEntries(dimensions.map((dimension) => [dimension, [] as KeyedFigures[]])) as Record<Dimension, KeyedFigures[]>;
  for (const row of found) {
    const set = setOf(row);
    const keyed = Object.fromEntries(ALL_FIGURES.map((figure) => [figure, row[figure]]));
    figures[dimensions[set]!].push({ ...keyed, key: String(row[`key${set}`]) } as KeyedFigures);
  }
  return figures;
}

/**
 * The detailed report's rows among `rows` as one statement over a rollup table: each campaign (or
 * ad) and day over every publisher (publisher_id ''), and for the campaigns of `networkCampaigns`
 * each sub-publisher's share too; `selected` is what each row selects beside its key. Both kinds
 * of row come from one scan (GROUPING SETS): the totals grouped without the share's publisher,
 * the shares with it, kept only where it names one (a network-bought campaign's row); each table
 * a ClickHouse query reads costs milliseconds of its own, and a union read each table twice.
 */
async function measuredRowsStatement(grain: "campaign" | "ad", rows: RollupRows, networkCampaigns: readonly string[]) {
  const key = grain === "campaign" ? "r.campaign_id" : "r.ad_id";
  const totals = await whereOf(rows);
  const totalRows = (table: string, selected: string) => `SELECT r.day AS day, ${key} AS key, '' AS row_publisher${selected}
       FROM ${table} AS r WHERE ${totals.clause} GROUP BY day, key, row_publisher`;
  // The share's publisher: a network-bought campaign's row's publisher, '' for any other row.
  // grouping() of it is 1 in a row of the set without it: the totals.
  const share = "if(r.campaign_id IN {shareCampaigns:Array(String)}, r.publisher_id, '')";
  const withShares = (
    table: string,
    selected: string,
  ) => `SELECT r.day AS day, ${key} AS key, if(grouping(${share}) = 1, '', ${share}) AS row_publisher${selected}
       FROM ${table} AS r WHERE ${totals.clause}
      GROUP BY GROUPING SETS ((day, key), (day, key, ${share}))
     HAVING grouping(${share}) = 1 OR ${share} != ''`;
  return {
    text: (table: string, selected: string) => (networkCampaigns.length === 0 ? totalRows(table, selected) : withShares(table, selected)),
    where: {
      params: networkCampaigns.length === 0 ? totals.params : { ...totals.params, shareCampaigns: networkCampaigns },
      source: totals.source,
      settings: totals.settings,
    },
  };
}

/** The detailed report's rows among `rows` with their figures (see measuredRowsStatement). */
export async function measuredFigures(grain: "campaign" | "ad", rows: RollupRows, networkCampaigns: readonly string[]): Promise<MeasuredFigures[]> {
  const statement = await measuredRowsStatement(grain, rows, networkCampaigns);
  const measured = await fromBothTables<Measured>(
    (table, selected) => statement.text(table, `, ${selected}`),
    ["day", "key", "row_publisher"],
    statement.where,
  );
  return rename(measured);
}

/** Where a page sorted by day starts and how long it is, in the report's direction. */
export interface DayPage {
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

/**
 * A page of the detailed report sorted by day, cut here: sorted by day, the report's order is the
 * day, the key and the row's publisher ('' first), all known here (groupOrder in
 * detailed-report-parts.sql.ts, ids as bytes). One scan of report_rollups lists the rows of the
 * range by their keys alone, sorted and cut to the page with the count of every row (each row
 * with order figures has traffic too); then only the page's keys on the page's days are summed,
 * and only the page's rows handed to Postgres to name: a day of a large advertiser's ads is
 * hundreds of rows, a page fifty. Where the page opens among a group's sub-publisher rows, the
 * group's total row comes first, one row before the page. Past the last row, no rows: only the
 * count, from the keys alone, as cheap as any page.
 */
export async function measuredPage(
  grain: "campaign" | "ad",
  rows: RollupRows,
  networkCampaigns: readonly string[],
  page: DayPage,
): Promise<{ rows: MeasuredFigures[]; before: number; total: number }> {
  const listing = await measuredRowsStatement(grain, rows, networkCampaigns);
  const keysOnly = listing.text(listing.where.source.from("report_rollups"), "");
  const direction = page.order === "asc" ? "ASC" : "DESC";
  const cut = await selectRows<{ day: string; key: string; row_publisher: string; total: string }>(
    `SELECT day, key, row_publisher, count() OVER () AS total FROM (${keysOnly})
      ORDER BY day ${direction}, key ASC, row_publisher ASC LIMIT {pageLimit:UInt32} OFFSET {pageOffset:UInt64}${listing.where.settings}`,
    { ...listing.where.params, pageLimit: page.limit, pageOffset: page.offset },
  );
  const first = cut[0];
  if (!first) {
    const [counted] = await selectRows<{ total: string }>(`SELECT count() AS total FROM (${keysOnly})${listing.where.settings}`, listing.where.params);
    return { rows: [], before: page.offset, total: Number(counted?.total ?? 0) };
  }
  const days = cut.map((row) => row.day).sort();
  const keys = [...new Set(cut.map((row) => row.key))];
  const figures = await measuredFigures(
    grain,
    { ...rows, range: { startDate: days[0]!, endDate: days.at(-1)! }, where: [...rows.where, [grain === "campaign" ? "campaign_id" : "ad_id", keys]] },
    networkCampaigns,
  );
  const id = (row: { day: string; key: string }, publisher: string) => `${row.day}|${row.key}|${publisher}`;
  const wanted = new Set(cut.map((row) => id(row, row.row_publisher)));
  // The group's total row goes before the page only when it is there to go: `before` counts it.
  const groupTotal = id(first, "");
  const opensInGroup = first.row_publisher !== "" && figures.some((row) => id(row, row.publisher_id) === groupTotal);
  if (opensInGroup) wanted.add(groupTotal);
  return {
    rows: figures.filter((row) => wanted.has(id(row, row.publisher_id))),
    before: page.offset - (opensInGroup ? 1 : 0),
    total: Number(first.total),
  };
}

// The publisher of a measured row is named apart in ClickHouse: an alias publisher_id would stand
// for the column in the WHERE clause too.
type Measured = Omit<MeasuredFigures, "publisher_id"> & { row_publisher: string };
const rename = (rows: Measured[]): MeasuredFigures[] => rows.map(({ row_publisher, ...row }) => ({ ...row, publisher_id: row_publisher }));

const REASON_SUMS = FILTERED_STATUSES.map(({ column }) => `sum(r.${column}) AS ${column}`).join(", ");

/** Per day with rows among `rows`: counted events and each filtered reason, as numbers. */
export async function invalidTrafficDays(rows: RollupRows): Promise<InvalidTrafficDay[]> {
  const { clause, params, source, settings } = await whereOf(rows);
  const found = await selectRows<Record<string, string>>(
    `SELECT r.day AS day, sum(r.impressions + r.views + r.clicks) AS counted_events, ${REASON_SUMS}
       FROM ${source.from("report_rollups")} AS r
      WHERE ${clause}
      GROUP BY day${settings}`,
    params,
  );
  return found.map((row) => {
    const day: Record<string, string | number> = { day: row.day! };
    for (const [column, value] of Object.entries(row)) if (column !== "day") day[column] = Number(value);
    return day as InvalidTrafficDay;
  });
}
