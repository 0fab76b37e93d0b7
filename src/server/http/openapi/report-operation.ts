// A report route's operation, derived from the very spec its query is parsed with
// (src/server/store/report-query.ts) and the schema of its rows (src/server/store/report-rows.ts):
// a parameter the parser learns and this file does not describe throws when the document is built.
import type { z } from "zod";
import type { OauthScope } from "@/server/accounts/oauth-client-input";
import { MAX_ZONE_LENGTH } from "@/server/core/time-zones";
import {
  DEFAULT_ORDER,
  DEFAULT_PER_PAGE,
  DEFAULT_RANGE_DAYS,
  MAX_ID_LENGTH,
  MAX_PAGE,
  MAX_PER_PAGE,
  MAX_RANGE_DAYS,
  type ReportQuerySpec,
  reportQueryParameterNames,
} from "@/server/store/report-query";
import { reportPageSchema } from "@/server/store/report-rows";
import { API_KEY, type ApiOperation, type ApiParameter, type ApiResponse, jsonSchemaOf, OAUTH2, RATE_LIMIT_HEADERS, responseRef, schemaRef } from "./registry";
import { countedError } from "./shared-responses";

export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
export const REPORTS_TAG = "Reports";
/** Who may read reports: one place, so the OAuth2 scope joins every report at once. */
export const REPORT_SECURITY = securityFor("reports:read");

/** An API key, or an OAuth2 access token holding `scope`. */
export function securityFor(scope: OauthScope): Record<string, string[]>[] {
  return [{ [API_KEY]: [] }, { [OAUTH2]: [scope] }];
}

const day = (description: string, example: string): Pick<ApiParameter, "description" | "schema" | "example"> => ({
  description,
  schema: { type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
  example,
});

const ID_DESCRIPTIONS: Record<string, string> = {
  advertiser_id: "Only this advertiser's rows.",
  publisher_id: "Only this publisher's rows.",
  campaign_id: "Only this campaign's rows.",
  ad_id: "Only this ad's rows.",
};

/** How each query parameter the parser knows reads in the document. */
function parameterOf(name: string, spec: ReportQuerySpec<string>): ApiParameter {
  const query = (rest: Omit<ApiParameter, "name" | "in">): ApiParameter => ({ name, in: "query", ...rest });
  switch (name) {
    case "start_date":
      return query(
        day(
          `First day of the range, a local date in the report's time zone, inclusive. Default: ${DEFAULT_RANGE_DAYS} days ending at end_date. At most ${MAX_RANGE_DAYS} days.`,
          "2026-11-01",
        ),
      );
    case "end_date":
      return query(day("Last day of the range, a local date in the report's time zone, inclusive. Default: today there.", "2026-11-30"));
    case "time_zone":
      return query({
        description:
          "The IANA time zone the range and each row's day are local dates in. Default: the caller's account's zone (staff: the operator's), or UTC when reports are not kept in it. Only the zones reports are kept in can be read (400 names them); the answer's Tally-Time-Zone header says which was used.",
        schema: { type: "string", minLength: 1, maxLength: MAX_ZONE_LENGTH },
        example: "America/Sao_Paulo",
      });
    case "page":
      return query({ description: "The page to answer, from 1.", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE, default: 1 } });
    case "per_page":
      return query({ description: "Rows per page.", schema: { type: "integer", minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE } });
    case "order_by":
      return query({ description: "The column to sort by.", schema: { type: "string", enum: [...spec.orderBy], default: spec.orderBy[0] } });
    case "order":
      return query({ description: "Sort direction.", schema: { type: "string", enum: ["asc", "desc"], default: spec.defaultOrder ?? DEFAULT_ORDER } });
    case "download":
      return query({
        description: "true: the whole report (every page) as an XLSX file instead of JSON, subject to the download limits.",
        schema: { type: "boolean", default: false },
      });
    default: {
      const description = ID_DESCRIPTIONS[name];
      if (!description) throw new Error(`the report query parameter ${name} has no description in the API document`);
      return query({ description, schema: { type: "string", minLength: 1, maxLength: MAX_ID_LENGTH } });
    }
  }
}

/** The query parameters of a report route, in the order its 400 names them. */
export function reportQueryParameters(spec: ReportQuerySpec<string>): ApiParameter[] {
  return reportQueryParameterNames(spec).map((name) => parameterOf(name, spec));
}

/** Every report answer names the zone its dates are local dates in (src/server/http/report-time-zone-headers.ts). */
export const TIME_ZONE_HEADERS = {
  "Tally-Time-Zone": {
    description: "The IANA time zone the answer's dates (the range and each row's day) are local dates in.",
    required: true,
    schema: { type: "string", examples: ["America/Sao_Paulo"] },
  },
  "Tally-Utc-Days-Before": {
    description:
      "Present when the range reaches before the days reports are kept in that zone: the days before this date (YYYY-MM-DD) are UTC days, each figure counted once; from it on, local days.",
    schema: { type: "string", format: "date" },
  },
};

const CACHE_CONTROL = { description: "Reports are private and never cached: private, no-store.", required: true, schema: { type: "string" } };

/** 200: JSON of `jsonSchema`, or the XLSX file with download=true. */
export function reportAnswer(description: string, jsonSchema: object): ApiResponse {
  return {
    description,
    headers: {
      "Cache-Control": CACHE_CONTROL,
      ...TIME_ZONE_HEADERS,
      ...RATE_LIMIT_HEADERS,
      "Content-Disposition": { description: 'With download=true: attachment; filename="<report>_<start_date>_<end_date>.xlsx".', schema: { type: "string" } },
    },
    content: {
      "application/json": { schema: jsonSchema as Record<string, unknown> },
      [XLSX]: { schema: { type: "string", contentMediaType: XLSX } },
    },
  };
}

/** A report route's errors: the RateLimit fields on every one but 401 (asked before counting). */
export const REPORT_ERRORS = {
  "400": countedError("BadRequest"),
  "401": responseRef("Unauthorized"),
  "403": countedError("Forbidden"),
  "404": countedError("NotFound"),
  "429": countedError("TooManyRequests"),
  "503": countedError("Unavailable"),
};

export interface PagedReportDoc {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** The name of the row's schema under #/components/schemas/. */
  rowName: string;
}

/** The operation of a paged report and the schemas it names: the row, and a page of them. */
export function pagedReportOperation(
  doc: PagedReportDoc,
  spec: ReportQuerySpec<string> & { kinds?: readonly string[] },
  row: z.ZodType,
): { operation: ApiOperation; schemas: Record<string, Record<string, unknown>> } {
  const pageName = `${doc.rowName}Page`;
  const forKinds = spec.kinds ? ` For ${spec.kinds.join(" and ")} accounts only: other accounts get 404.` : "";
  return {
    operation: {
      method: "get",
      path: doc.path,
      operationId: doc.operationId,
      tags: [REPORTS_TAG],
      summary: doc.summary,
      description: `${doc.description}${forKinds}`,
      security: REPORT_SECURITY,
      parameters: reportQueryParameters(spec),
      responses: { "200": reportAnswer("One page of rows (JSON), or every row as an XLSX file with download=true.", schemaRef(pageName)), ...REPORT_ERRORS },
    },
    schemas: { [doc.rowName]: jsonSchemaOf(row), [pageName]: pageByReference(row, doc.rowName) },
  };
}

/** A page's schema with its rows by reference, so each row's schema is written once. */
function pageByReference(row: z.ZodType, rowName: string): Record<string, unknown> {
  const page = jsonSchemaOf(reportPageSchema(row)) as { properties: Record<string, unknown> };
  return { ...page, properties: { ...page.properties, data: { type: "array", items: schemaRef(rowName) } } };
}
