// GET /report/hours in the API document: the 168 cells of a week, not a page, from the same query
// spec its route parses (hours-route.ts).
import type { ReportQuerySpec } from "@/server/store/report-query";
import { type ApiOperation, schemaRef } from "./registry";
import { REPORT_ERRORS, REPORT_SECURITY, REPORTS_TAG, reportAnswer, reportQueryParameters } from "./report-operation";

export const HOURS_SINCE_HEADER = "Tally-Hours-Since";

export function hoursOperation(spec: ReportQuerySpec<string>): ApiOperation {
  const answer = reportAnswer("The 168 cells of the week (JSON), or the same rows as an XLSX file with download=true.", {
    type: "object",
    properties: {
      data: { type: "array", items: schemaRef("HourRow"), minItems: 168, maxItems: 168, description: "Weekday then hour: 0 (Sunday) 0:00 first." },
      time_zone: { type: "string", description: "The IANA zone the range's dates, the weekdays and the hours are local to." },
      hours_since: { type: "string", format: "date-time", description: "The moment hours are counted from in this zone: no cell holds an event before it." },
    },
    required: ["data", "time_zone", "hours_since"],
    additionalProperties: false,
  });
  return {
    method: "get",
    path: "/report/hours",
    operationId: "getHours",
    tags: [REPORTS_TAG],
    summary: "Figures by weekday and hour (dayparting)",
    description:
      "The range's figures in the caller's scope summed by local weekday and hour: all 168 cells, weekday then hour, zeros where nothing happened. Hours are kept from a moment on (hours_since, also the Tally-Hours-Since header): a range that starts before it counts only the hours after. Orders are distinct orders of the cell; filtered to one campaign, that campaign's.",
    security: REPORT_SECURITY,
    parameters: reportQueryParameters(spec),
    responses: {
      "200": {
        ...answer,
        headers: {
          ...answer.headers,
          [HOURS_SINCE_HEADER]: {
            description: "The moment hours are counted from in the report's zone (ISO 8601, UTC).",
            required: true,
            schema: { type: "string", format: "date-time" },
          },
        },
      },
      ...REPORT_ERRORS,
    },
  };
}
