// Hand-written SQL: the beacons Tally stored but filtered, per day and reason, over a range and a
// scope, every day present: the dashboard's invalid traffic screen. Read from
// daily_campaign_totals, which the beacon writer keeps per reason in the transaction that stores
// the events, so the screen agrees with the reports' filtered counts.

import sql, { raw } from "sql-template-tag";
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { pgPool } from "@/server/db/pg-pool";
import type { ReportScope, ZonedRange } from "@/server/store/report-query";
import type { InvalidTrafficDay } from "@/server/store/report-rows";
import { zonedDays } from "./report-zone.sql";

// Column names from the fixed list of filtered statuses.
const REASON_SUMS = raw(FILTERED_STATUSES.map(({ column }) => `coalesce(sum(r.${column}), 0)::float8 AS ${column}`).join(", "));

/** Filtered beacons per local day of the range's zone and reason, with the counted ones beside them, in scope. */
export async function invalidTrafficByDay(scope: ReportScope, range: ZonedRange): Promise<InvalidTrafficDay[]> {
  const { advertiserId, publisherIds } = scope;
  const { rows } = await pgPool().query<InvalidTrafficDay>(sql`
  SELECT d.day::date::text AS day,
         coalesce(sum(r.impressions + r.views + r.clicks), 0)::float8 AS counted_events,
         ${REASON_SUMS}
    FROM generate_series(${range.startDate}::date, ${range.endDate}::date, interval '1 day') AS d(day)
    LEFT JOIN daily_campaign_totals r
      ON r.day = d.day::date AND ${zonedDays("r", range)} AND (${advertiserId}::text IS NULL OR r.advertiser_id = ${advertiserId}) AND (${publisherIds}::text[] IS NULL OR r.publisher_id = ANY(${publisherIds}))
   GROUP BY d.day
   ORDER BY d.day`);
  return rows;
}
