// GET /report/hours (dayparting) as a Fetch handler: parse the query, find the caller's scope, read
// the hours through the store (report-definitions.ts's HOURS_REPORT), answer the 168 cells as JSON
// or the XLSX download, each saying from when the zone's hours are counted.
import { xlsxHeaders } from "@/server/formats/xlsx";
import { reportCurrency } from "@/server/pipeline/report/report-currency";
import { HOURS_REPORT, hoursWorkbookOf } from "@/server/pipeline/report/report-definitions";
import { reportScope } from "@/server/pipeline/report/report-scope";
import { callerReportZones } from "@/server/pipeline/report/report-time-zone";
import { reportXlsxStream } from "@/server/pipeline/report/report-workbook";
import { ZHourRow } from "@/server/store/hours-report";
import { parseReportQuery, type ReportQuerySpec } from "@/server/store/report-query";
import { HOURS_SINCE_HEADER, hoursOperation } from "./openapi/hours-operation";
import { type ApiContribution, jsonSchemaOf } from "./openapi/registry";
import { reportRoute } from "./report-caller";
import { TIME_ZONE_HEADER } from "./report-time-zone-headers";

const HOURS_QUERY: ReportQuerySpec<"weekday"> = { ids: HOURS_REPORT.ids, orderBy: ["weekday"], paged: false };

/** The hours route's part of the API document (src/server/http/openapi/). */
export const HOURS_API: ApiContribution = { tags: [], schemas: { HourRow: jsonSchemaOf(ZHourRow) }, operations: [hoursOperation(HOURS_QUERY)] };

export const handleHours = reportRoute(async (request, caller) => {
  const zones = await callerReportZones(caller);
  const query = parseReportQuery(new URL(request.url).searchParams, HOURS_QUERY, zones);
  // The hours read only the zone's own rows (from its hours_since), never UTC days before it.
  const zoneHeaders = { [TIME_ZONE_HEADER]: query.zone };
  const report = await HOURS_REPORT.read(await reportScope(caller), query);
  const hoursSince = report.hoursSince.toISOString();
  if (query.download) {
    async function* rows() {
      yield report.rows;
    }
    const currency = await reportCurrency(caller, query.ids);
    return new Response(reportXlsxStream(hoursWorkbookOf(report), currency, rows()), {
      headers: { ...xlsxHeaders(HOURS_REPORT.file, query.startDate, query.endDate), [HOURS_SINCE_HEADER]: hoursSince, ...zoneHeaders },
    });
  }
  return Response.json(
    { data: report.rows, time_zone: report.zone, hours_since: hoursSince },
    { headers: { "Cache-Control": "private, no-store", [HOURS_SINCE_HEADER]: hoursSince, ...zoneHeaders } },
  );
});
