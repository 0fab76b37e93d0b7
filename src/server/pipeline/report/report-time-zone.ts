// The zone a caller's reports are read in when the request names none: its account's
// (accounts.time_zone: the advertiser's for an advertiser's key, token or member, the
// publisher's, the network's), or for staff the operator's default zone. A zone the store does
// not read exactly falls back to UTC, and every answer names the zone it used (docs/reports.md).
import { operatorTimeZone } from "@/server/accounts/account-time-zone";
import { UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { type ReportZones, reportZones } from "@/server/store/report-query";
import { unknownReportZones } from "@/server/store/unknown-zones.sql";
import type { ReportCaller } from "./report-scope";
import { accountTimeZoneOf } from "./report-scope.sql";

/** The zone of the caller's own account (staff: the operator's). */
export async function callerTimeZone(caller: ReportCaller): Promise<string> {
  if (caller.accountKind === "staff" || caller.accountId === null) return operatorTimeZone();
  const { rows } = await pgPool().query<{ time_zone: string }>(accountTimeZoneOf(caller.accountId));
  return rows[0]?.time_zone ?? UTC;
}

/** The zones the caller's report may be read in, and its default. */
export async function callerReportZones(caller: ReportCaller): Promise<ReportZones> {
  const [own, readable, unknown] = await Promise.all([callerTimeZone(caller), store().reports.readableZones(), unknownReportZones()]);
  return reportZones(
    own,
    readable,
    unknown.map((z) => z.zone),
  );
}
