// GET /campaign/{id} in the API document: one campaign, not a page, from the same query spec its
// route parses (report-routes.ts).
import type { ReportQuerySpec } from "@/server/store/report-query";
import { type ApiOperation, schemaRef } from "./registry";
import { REPORT_ERRORS, REPORT_SECURITY, REPORTS_TAG, reportAnswer, reportQueryParameters } from "./report-operation";

export function campaignDetailOperation(spec: ReportQuerySpec<string>): ApiOperation {
  return {
    method: "get",
    path: "/campaign/{id}",
    operationId: "getCampaign",
    tags: [REPORTS_TAG],
    summary: "One campaign: totals, days and ads",
    description:
      "One campaign in the caller's scope with its figures over the range, its daily rows and its first 1,000 ads by impressions. With download=true the file holds the daily rows. 404 for a campaign that does not exist or is not the caller's.",
    security: REPORT_SECURITY,
    parameters: [
      { name: "id", in: "path", required: true, description: "The campaign's id.", schema: { type: "string", minLength: 1 } },
      ...reportQueryParameters(spec),
    ],
    responses: {
      "200": reportAnswer("The campaign (JSON), or its daily rows as an XLSX file with download=true.", {
        type: "object",
        properties: { data: schemaRef("CampaignDetail") },
        required: ["data"],
        additionalProperties: false,
      }),
      ...REPORT_ERRORS,
    },
  };
}
