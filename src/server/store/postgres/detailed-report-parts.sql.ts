// Hand-written SQL: the parts of a detailed report statement (detailed-report.sql.ts), one
// builder each, all built from one plan of the request. Rows are one campaign (or ad) and day
// with every publisher together ('' as publisher_id: the total row), and, for campaigns bought
// through a network, one per sub-publisher and day. Both come from the grain's coarse table
// (daily_campaign_totals or daily_ad_totals), whose order counts are exact for each kind of row,
// or, with ClickHouse as the store, from both kinds of rows summed there and passed in (`given`).

import sql, { empty, raw, type Sql } from "sql-template-tag";
import type { ZonedRange } from "@/server/store/report-query";
import { PAGE_LIMIT, PAGE_OFFSET } from "./report-runner";
import { readsOneZone, zonedDays } from "./report-zone.sql";
import { invalidEventsSum } from "./rollup-tables.sql";
import { FIGURE_NAMES, FIGURES, figureArrays, type GivenFigures, ORDER_FIGURES } from "./rollup-totals.sql";

export type DetailedGrain = "campaign" | "ad";

/**
 * A detailed report row's figures summed by another store (ClickHouse): one campaign (or ad) on
 * one day over every publisher (publisher_id ''), or on one sub-publisher of a network-bought
 * campaign, with distinct orders exact for that row.
 */
export type MeasuredFigures = GivenFigures & { day: string; key: string; publisher_id: string };

/**
 * A detailed report's rows summed by another store: every row of the range, or, for a page sorted
 * by day, the page already cut there (`cut`): its rows in the report's order (groupOrder) with,
 * where the page opens among a group's sub-publisher rows, that group's total row before them;
 * how many rows come before the first given one; and how many the whole report holds. Sorted by
 * day, the order is the day, the key and the publisher id, as text in byte order: every part of
 * it is known where the figures are summed, so only a page's rows are summed, passed and named.
 */
export interface GivenDetailedRows {
  rows: readonly MeasuredFigures[];
  cut?: { before: number; total: number };
}

/** What every part is built from. SQL members are identifiers and sorts from fixed lists. */
export interface DetailedPlan {
  grain: DetailedGrain;
  /** `campaign_id` or `ad_id`: the column a row's object is keyed by. */
  key: Sql;
  /** daily_campaign_totals or daily_ad_totals. */
  table: Sql;
  /** The sort as SQL over a listed row, and its direction. */
  sort: Sql;
  direction: Sql;
  /** A download: every row once, in order, with no day window, page or count. */
  whole: boolean;
  /** Sorted by day (and not a download): only the days the page covers are summed, or only its rows given (a cut page). */
  byDay: boolean;
  /** Rows per day are read from daily_ad_row_counts instead of counted from keys. */
  countedRows: boolean;
  /** Local dates of the zone read in (report-zone.sql.ts). */
  range: ZonedRange;
  /** The caller's advertiser scope. */
  advertiserId: string | null;
  /** The request's id filters (ad_id for the ad grain only). */
  ids: { advertiserId: string | null; campaignId: string | null; adId: string | null };
  /** The measured rows summed elsewhere and already filtered, instead of the report tables: the whole range's, or a page cut there. */
  given?: GivenDetailedRows;
}

const LIMIT = sql`${PAGE_LIMIT}::int`;
const OFFSET = sql`${PAGE_OFFSET}::int`;

const SUMS = raw(`sum(r.impressions) AS impressions, sum(r.views) AS views, sum(r.clicks) AS clicks, sum(r.spend_micros) AS spend_micros,
             sum(r.duplicate_events) AS duplicate_events, sum(r.bot_events) AS bot_events, sum(${invalidEventsSum("r")}) AS invalid_events,
             sum(r.sales_revenue_micros) AS sales_revenue_micros, sum(r.unverified_sales_revenue_micros) AS unverified_sales_revenue_micros,
             sum(r.uncredited_sales_revenue_micros) AS uncredited_sales_revenue_micros, sum(r.sales_revenue_click_micros) AS sales_revenue_click_micros,
             sum(r.units_sold_micros) AS units_sold_micros, sum(r.converted_clicks) AS converted_clicks,
             sum(r.halo_sales_revenue_micros) AS halo_sales_revenue_micros, sum(r.ntb_sales_revenue_micros) AS ntb_sales_revenue_micros`);

/** Distinct orders: exact for each kind of row of the grain's table (see measuredCte). */
const ORDER_SUMS = raw(ORDER_FIGURES.map((figure) => `sum(r.${figure}) AS ${figure}`).join(", "));

/** Every figure of a measured row `m`, as the numbers a report row is computed from. */
const MEASURED_FIGURES = raw(FIGURES.map((figure) => `m.${figure}::float8 AS ${figure}`).join(", "));

/** The networks each campaign is bought through, comma-separated (campaigns without one have no row). */
export const networksCte = (): Sql => sql`networks AS (
      SELECT cp.campaign_id, string_agg(n.id, ',' ORDER BY n.id) AS network_ids
        FROM campaign_publishers cp JOIN accounts n ON n.id = cp.publisher_id AND n.kind = 'network'
       GROUP BY cp.campaign_id
    )`;

/** The caller's scope and the request's filters over a report table's row `r`. */
function rowFilters({ grain, advertiserId, ids }: DetailedPlan): Sql {
  const adFilter = grain === "ad" ? sql` AND (${ids.adId}::text IS NULL OR r.ad_id = ${ids.adId})` : empty;
  return sql`(${advertiserId}::text IS NULL OR r.advertiser_id = ${advertiserId}) AND (${ids.advertiserId}::text IS NULL OR r.advertiser_id = ${ids.advertiserId})
         AND (${ids.campaignId}::text IS NULL OR r.campaign_id = ${ids.campaignId})${adFilter}`;
}

// daily_ad_totals holds each ad over every publisher (publisher_id '') and per publisher;
// daily_campaign_totals per publisher only.
const totalRowsOnly = ({ grain }: DetailedPlan) => (grain === "ad" ? raw(" AND r.publisher_id = ''") : empty);
const publisherRowsOnly = ({ grain }: DetailedPlan) => (grain === "ad" ? raw(" AND r.publisher_id <> ''") : empty);

/**
 * How many report rows each day holds. Ad rows are read from daily_ad_row_counts (a few rows per
 * campaign and day) unless one ad is asked for; counting daily_ad_totals' keys for a large
 * advertiser cost most of a request's time (bench/results.md). Otherwise the keys are counted: a row of daily_ad_totals
 * is one ad (or one ad on one publisher) on one day, and a row of daily_campaign_totals one
 * campaign on one publisher, so only campaign totals need DISTINCT. Given rows are the rows.
 */
function dayRowCounts(plan: DetailedPlan): Sql {
  if (plan.given) return sql`SELECT day, count(*)::bigint AS n FROM given GROUP BY day`;
  if (plan.countedRows) return countedDayRows(plan);
  return sql`SELECT day, count(*)::bigint AS n FROM (${rowKeys(plan, zonedDays("r", plan.range))}) row_keys GROUP BY day`;
}

/**
 * Rows per day from daily_ad_row_counts. In a zone other than UTC, the date where the UTC days
 * meet the zone's own (report-zone.sql.ts) may hold an ad in both, one report row: that date's
 * rows are counted by key instead.
 */
function countedDayRows(plan: DetailedPlan): Sql {
  const { range, advertiserId, ids } = plan;
  const counts = (having: Sql, columns: Sql) => sql`SELECT ${columns}
        FROM daily_ad_row_counts c LEFT JOIN networks n ON n.campaign_id = c.campaign_id
       WHERE ${zonedDays("c", range)} AND (${advertiserId}::text IS NULL OR c.advertiser_id = ${advertiserId}) AND (${ids.advertiserId}::text IS NULL OR c.advertiser_id = ${ids.advertiserId})
         AND (${ids.campaignId}::text IS NULL OR c.campaign_id = ${ids.campaignId})
       GROUP BY c.day ${having}`;
  const perDay = sql`c.day, sum(c.ad_rows + CASE WHEN n.campaign_id IS NULL THEN 0 ELSE c.ad_publisher_rows END)::bigint AS n`;
  if (readsOneZone(range)) return counts(empty, perDay);
  const seamDays = counts(raw("HAVING count(DISTINCT c.zone) > 1"), raw("c.day"));
  return sql`${counts(raw("HAVING count(DISTINCT c.zone) = 1"), perDay)}
      UNION ALL
      SELECT day, count(*)::bigint AS n FROM (${rowKeys(plan, sql`${zonedDays("r", range)} AND r.day IN (${seamDays})`)}) row_keys GROUP BY day`;
}

/**
 * The keys of the report rows on the days `days` selects: (day, key, '') for total rows, (day,
 * key, publisher) for sub-publisher rows. One zone's rows hold each key once (campaign totals
 * once per publisher: DISTINCT); in another zone than UTC a key may also be in a UTC row of the
 * same date, so every key is deduplicated (UNION).
 */
function rowKeys(plan: DetailedPlan, days: Sql): Sql {
  const oneZone = readsOneZone(plan.range);
  return sql`SELECT ${raw(oneZone && plan.grain === "ad" ? "" : "DISTINCT ")}r.day, r.${plan.key}, '' AS publisher_id FROM ${plan.table} r
         WHERE ${days} AND ${rowFilters(plan)}${totalRowsOnly(plan)}
        ${raw(oneZone ? "UNION ALL" : "UNION")}
        SELECT r.day, r.${plan.key}, r.publisher_id FROM ${plan.table} r JOIN networks n ON n.campaign_id = r.campaign_id
         WHERE ${days} AND ${rowFilters(plan)}${publisherRowsOnly(plan)}`;
}

/** The CTE `given` (and its comma) when the rows were summed elsewhere: one row per measured row. */
export function givenCte({ given }: DetailedPlan): Sql {
  if (!given) return empty;
  const column = (name: "day" | "key" | "publisher_id") => given.rows.map((row) => row[name]);
  return sql`given AS (
      SELECT * FROM unnest(${column("day")}::date[], ${column("key")}::text[], ${column("publisher_id")}::text[], ${figureArrays(given.rows)})
          AS g(day, key, publisher_id, ${FIGURE_NAMES})
    ), `;
}

/**
 * Sorted by day, a page needs only the days it covers: rows are counted per day (keys only, no
 * sums), and the days holding rows offset to offset + limit are chosen (`chosen`, with the rows
 * before each). Other sorts need every row's figures, and a cut page is given its rows: no CTEs.
 */
export function dayWindowCtes(plan: DetailedPlan): Sql {
  if (!plan.byDay || plan.given?.cut) return empty;
  return sql`day_rows AS (
      ${dayRowCounts(plan)}
    ), placed AS (
      SELECT day, n, coalesce(sum(n) OVER (ORDER BY day ${plan.direction} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before FROM day_rows
    ), chosen AS MATERIALIZED (
      SELECT day, before FROM placed WHERE before + n > ${OFFSET} AND (${LIMIT} IS NULL OR before < ${OFFSET} + ${LIMIT})
    ), `;
}

/** The days to sum: the chosen ones when sorted by day, else the whole range; of the zone's rows (or the given ones, all of a cut page's). */
function daysRead(plan: DetailedPlan): Sql {
  const chosen = sql`r.day BETWEEN (SELECT min(day) FROM chosen) AND (SELECT max(day) FROM chosen)`;
  if (plan.given) return plan.byDay && !plan.given.cut ? chosen : sql`r.day BETWEEN ${plan.range.startDate}::date AND ${plan.range.endDate}::date`;
  return plan.byDay ? sql`${zonedDays("r", plan.range)} AND ${chosen}` : zonedDays("r", plan.range);
}

/**
 * The CTE `measured`: total rows from the grain's coarse table, whose distinct order count is
 * exact for it, then sub-publisher rows of campaigns bought through a network, from the same
 * table's per-publisher rows, whose distinct order counts are exact for a campaign (or an ad) on
 * a publisher.
 */
export function measuredCte(plan: DetailedPlan): Sql {
  if (plan.given) return sql`measured AS (SELECT r.* FROM given r WHERE ${daysRead(plan)})`;
  return sql`measured AS (
      SELECT r.day, r.${plan.key} AS key, '' AS publisher_id, ${SUMS}, ${ORDER_SUMS}
        FROM ${plan.table} r
       WHERE ${daysRead(plan)} AND ${rowFilters(plan)}${totalRowsOnly(plan)}
       GROUP BY 1, 2
      UNION ALL
      SELECT r.day, r.${plan.key} AS key, r.publisher_id, ${SUMS}, ${ORDER_SUMS}
        FROM ${plan.table} r JOIN networks n ON n.campaign_id = r.campaign_id
       WHERE ${daysRead(plan)} AND ${rowFilters(plan)}${publisherRowsOnly(plan)}
       GROUP BY 1, 2, 3
    )`;
}

/** The CTE `objects`: the campaigns (or ads) in the caller's scope, with what a row names. */
export function objectsCte({ grain, advertiserId }: DetailedPlan): Sql {
  return grain === "campaign"
    ? sql`objects AS (SELECT c.id AS key, c.id AS campaign_id, c.name, c.type::text AS object_type, NULL::text AS campaign, c.advertiser_id
                FROM campaigns c WHERE ${advertiserId}::text IS NULL OR c.advertiser_id = ${advertiserId})`
    : sql`objects AS (SELECT a.id AS key, c.id AS campaign_id, a.name, a.type::text AS object_type, c.name AS campaign, c.advertiser_id
                FROM ads a JOIN campaigns c ON c.id = a.campaign_id WHERE ${advertiserId}::text IS NULL OR c.advertiser_id = ${advertiserId})`;
}

/** The CTE `listed`: every measured row of an object in scope, with its networks and sort value. */
export function listedCte(plan: DetailedPlan): Sql {
  return sql`listed AS MATERIALIZED (
      SELECT m.day, m.key, m.publisher_id, ${MEASURED_FIGURES},
             n.network_ids, ${plan.sort} AS sort_value
        FROM measured m
        JOIN objects x ON x.key = m.key
        LEFT JOIN networks n ON n.campaign_id = x.campaign_id
    )`;
}

/**
 * The order of rows: groups (one object on one day) by their total row's sort value, then the
 * total row, then its sub-publisher rows by their own; publisher ids settle ties. Ids compare as
 * bytes (COLLATE "C") whatever the database's collation, as ClickHouse compares them when it cuts
 * a page sorted by day (GivenDetailedRows).
 */
export function groupOrder({ direction }: DetailedPlan, row: "l" | "page", groupSort: "g.sort_value" | "page.group_sort"): Sql {
  const r = raw(row);
  return sql`${raw(groupSort)} ${direction}, ${r}.day ${direction}, ${r}.key COLLATE "C" ASC, ${r}.publisher_id <> '' ASC, ${r}.sort_value ${direction}, ${r}.publisher_id COLLATE "C" ASC`;
}

/**
 * The CTE `page`: the listed rows of the page, each with its group's sort value. Rows are sorted
 * and paged while still narrow (keys and figures); names are joined to the page's rows only.
 * Sorted by day, the offset counts from the first chosen day, or from the first row of a cut page.
 */
export function pageCte(plan: DetailedPlan): Sql {
  const paging = plan.whole
    ? empty
    : sql`ORDER BY ${groupOrder(plan, "l", "g.sort_value")}
       LIMIT ${LIMIT} OFFSET ${pageOffset(plan)}`;
  return sql`page AS (
      SELECT l.*, g.sort_value AS group_sort
        FROM listed l
        JOIN listed g ON g.day = l.day AND g.key = l.key AND g.publisher_id = ''
       ${paging}
    )`;
}

/** Where the page starts among the listed rows: sorted by day, counted from the first chosen day, or from the first given row of a cut page. */
function pageOffset({ byDay, given }: DetailedPlan): Sql {
  // Never below 0: a page whose given rows all fell away (out of scope here) is retried from its
  // first row for the count (report-runner.ts), which the cut carries anyway.
  if (given?.cut) return sql`greatest(${OFFSET} - ${given.cut.before}::int, 0)`;
  return byDay ? sql`${OFFSET} - coalesce((SELECT min(before) FROM chosen), 0)` : OFFSET;
}

/** Every row of the report, however few the page holds: none for a download. */
export function rowsTotal({ whole, byDay, given }: DetailedPlan): Sql {
  if (given?.cut) return sql`${given.cut.total}::bigint`;
  return raw(whole ? "0" : byDay ? "(SELECT coalesce(sum(n), 0) FROM day_rows)" : "(SELECT count(*) FROM listed)");
}
