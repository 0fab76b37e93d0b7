// Hand-written SQL: the beacons Tally stored but filtered, per day and reason, over a range and a
// scope, every day present: the dashboard's invalid traffic screen. Read from
// daily_campaign_totals, which the beacon writer keeps per reason in the transaction that stores
// the events, so the screen agrees with the reports' filtered counts.
import { pgPool } from "@/server/db/pg-pool";
import { FILTERED_STATUSES, type FilteredColumn } from "@/server/ingest/event-status";
import type { ReportScope } from "./report-scope";

export type InvalidTrafficDay = { day: string; counted_events: number } & Record<FilteredColumn, number>;

const COLUMNS = FILTERED_STATUSES.map(({ column }) => column);

const SQL = `
  SELECT d.day::date::text AS day,
         coalesce(sum(r.impressions + r.views + r.clicks), 0)::float8 AS counted_events,
         ${COLUMNS.map((column) => `coalesce(sum(r.${column}), 0)::float8 AS ${column}`).join(", ")}
    FROM generate_series($1::date, $2::date, interval '1 day') AS d(day)
    LEFT JOIN daily_campaign_totals r
      ON r.day = d.day::date AND ($3::text IS NULL OR r.advertiser_id = $3) AND ($4::text[] IS NULL OR r.publisher_id = ANY($4))
   GROUP BY d.day
   ORDER BY d.day`;

/** Filtered beacons per day and reason, with the counted ones beside them, in scope. */
export async function invalidTrafficByDay(scope: ReportScope, range: { startDate: string; endDate: string }): Promise<InvalidTrafficDay[]> {
  const { rows } = await pgPool().query<InvalidTrafficDay>(SQL, [range.startDate, range.endDate, scope.advertiserId, scope.publisherIds]);
  return rows;
}
