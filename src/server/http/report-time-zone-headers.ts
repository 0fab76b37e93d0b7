// The headers by which every report answer (JSON or XLSX) names the time zone its dates are local
// dates in, and, when its range reaches before the days the zone's own rows hold, the first day
// that is not a UTC day (docs/reports.md, "Time zones").
import type { ReportZones, ZonedRange } from "@/server/store/report-query";
import { utcDaysBeforeOf } from "@/server/store/report-query";

export const TIME_ZONE_HEADER = "Tally-Time-Zone";
export const UTC_DAYS_BEFORE_HEADER = "Tally-Utc-Days-Before";

/** Tally-Time-Zone always; Tally-Utc-Days-Before when days of the range are UTC days. */
export function timeZoneHeaders(range: ZonedRange, zones: ReportZones): Record<string, string> {
  const before = utcDaysBeforeOf(range, zones);
  return before === null ? { [TIME_ZONE_HEADER]: range.zone } : { [TIME_ZONE_HEADER]: range.zone, [UTC_DAYS_BEFORE_HEADER]: before };
}
