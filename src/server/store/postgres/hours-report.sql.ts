// Hand-written SQL: the hours report (dayparting), a range's figures summed by local weekday and
// hour from the hourly tables of one kept zone, all 168 cells with zeros where nothing happened.
//
// The hourly tables hold a zone's events from its `hours_since` on (rollup-tables.sql.ts), so a
// range that starts before it counts only the hours after; the answer says from when. Orders
// follow rollup-totals.sql.ts's rule: distinct orders add up over hours and publishers but not
// over campaigns or advertisers, so a report of one campaign takes them from the campaign rows,
// one of an advertiser from the advertiser rows (counted per advertiser), and one that spans
// advertisers from hourly_publisher_orders' every-advertiser rows.
import sql, { join, raw, type Sql } from "sql-template-tag";
import { TallyError } from "@/server/core/errors";
import { pgPool } from "@/server/db/pg-pool";
import type { HoursReport } from "@/server/store/hours-report";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { invalidEventsSum } from "./rollup-tables.sql";
import { FIGURES, ORDER_FIGURES, TOTALS_COLUMNS } from "./rollup-totals.sql";

type Ids = ReportQuery<string>["ids"];

/** The sum of each figure over the hourly campaign rows joined as `r`. */
const FIGURE_SUMS = join(
  FIGURES.map((figure) => raw(figure === "invalid_events" ? `sum(${invalidEventsSum("r")}) AS invalid_events` : `sum(r.${figure}) AS ${figure}`)),
);
const ORDER_SUMS = join(ORDER_FIGURES.map((figure) => raw(`sum(o.${figure}) AS ${figure}`)));

/** The weekday (0 = Sunday) and hour of a row joined as `alias`. */
const cell = (alias: string) => raw(`extract(dow FROM ${alias}.day)::int AS weekday, ${alias}.hour::int AS hour`);

/**
 * Distinct orders per cell over every advertiser, from hourly_publisher_orders' every-advertiser
 * rows (''): a caller's publishers only.
 */
function everyAdvertiserOrders(scope: ReportScope, ids: Ids, range: { startDate: string; endDate: string; zone: string }): Sql {
  return sql`SELECT ${cell("o")}, ${ORDER_SUMS}
        FROM hourly_publisher_orders o
       WHERE o.zone = ${range.zone} AND o.day BETWEEN ${range.startDate}::date AND ${range.endDate}::date AND o.advertiser_id = ''
         AND (${scope.publisherIds}::text[] IS NULL OR o.publisher_id = ANY(${scope.publisherIds}))
         AND (${ids.publisher_id ?? null}::text IS NULL OR o.publisher_id = ${ids.publisher_id ?? null})
       GROUP BY 1, 2`;
}

/**
 * One campaign's cells come from its own hourly rows (and their distinct orders); every other
 * read spans campaigns, and takes the advertisers' hourly rows, one per publisher an hour rather
 * than one per campaign and publisher, or one an hour over every publisher when the read names no
 * publisher (an advertiser's through the index that carries every figure): with their own
 * distinct orders when the rows are one advertiser's, with those of hourly_publisher_orders when
 * they span advertisers. Exported for bench/reports/statement-profile.ts.
 */
export function hoursStatement(scope: ReportScope, query: ReportQuery<string>, zone: string): Sql {
  const { ids } = query;
  const range = { startDate: query.startDate, endDate: query.endDate, zone };
  const oneCampaign = ids.campaign_id !== undefined;
  const oneAdvertiser = (ids.advertiser_id ?? scope.advertiserId ?? null) !== null;
  const orders =
    oneCampaign || oneAdvertiser ? sql`SELECT weekday, hour, ${raw(ORDER_FIGURES.join(", "))} FROM totals` : everyAdvertiserOrders(scope, ids, range);
  // hourly_advertiser_totals' rows over every publisher (publisher_id '') serve a read that names
  // no publisher; a publisher's own rows serve the others, whose filters leave the '' rows out.
  const rows = oneCampaign
    ? sql`AND r.campaign_id = ${ids.campaign_id}`
    : scope.publisherIds === null && ids.publisher_id === undefined
      ? sql`AND r.publisher_id = ''`
      : sql``;
  return sql`
    WITH totals AS (
      SELECT ${cell("r")}, ${FIGURE_SUMS}
        FROM ${raw(oneCampaign ? "hourly_campaign_totals" : "hourly_advertiser_totals")} r
       WHERE r.zone = ${zone} AND r.day BETWEEN ${query.startDate}::date AND ${query.endDate}::date
         AND (${scope.advertiserId}::text IS NULL OR r.advertiser_id = ${scope.advertiserId})
         AND (${scope.publisherIds}::text[] IS NULL OR r.publisher_id = ANY(${scope.publisherIds}))
         AND (${ids.advertiser_id ?? null}::text IS NULL OR r.advertiser_id = ${ids.advertiser_id ?? null})
         AND (${ids.publisher_id ?? null}::text IS NULL OR r.publisher_id = ${ids.publisher_id ?? null})
         ${rows}
       GROUP BY 1, 2
    ), orders AS (
      ${orders}
    )
    SELECT w.weekday, h.hour, ${TOTALS_COLUMNS}
      FROM generate_series(0, 6) AS w(weekday)
     CROSS JOIN generate_series(0, 23) AS h(hour)
      LEFT JOIN totals t ON t.weekday = w.weekday AND t.hour = h.hour
      LEFT JOIN orders o ON o.weekday = w.weekday AND o.hour = h.hour
     ORDER BY w.weekday, h.hour`;
}

/** The refusal of an hours read in a zone whose hours Tally does not keep, whichever the store. */
export const hoursNotKept = (zone: string) =>
  new TallyError("bad_request", `hours are not kept in the time zone ${zone}; they are kept in UTC and each account's zone`);

/** From when a kept zone's hours are counted; 400 for a zone whose hours Tally does not keep. */
export async function hoursSinceOf(zone: string): Promise<Date> {
  const { rows } = await pgPool().query<{ hours_since: Date }>(sql`SELECT hours_since FROM report_zones WHERE zone = ${zone}`);
  if (!rows[0]) throw hoursNotKept(zone);
  return rows[0].hours_since;
}

/** The range's figures by local weekday and hour in `query.zone` (UTC when absent), in scope and filtered by the route's ids. */
export async function hoursReport(scope: ReportScope, query: ReportQuery<string>): Promise<HoursReport> {
  const zone = query.zone ?? "UTC";
  const [hoursSince, { rows }] = await Promise.all([
    hoursSinceOf(zone),
    pgPool().query<TotalsRow & { weekday: number; hour: number }>(hoursStatement(scope, query, zone)),
  ]);
  return { zone, hoursSince, rows: rows.map((r) => ({ weekday: r.weekday, hour: r.hour, ...metricsOf(r) })) };
}
