// Tally's OpenAPI 3.1 document, put together from what each route module contributes
// (registry.ts). Nothing here describes a payload itself: the shared error answers come from
// respond.ts's schemas, the rest from the contributions.
import { EVENTS_API } from "../events-operations";
import { HOURS_API } from "../hours-route";
import { OAUTH_API } from "../oauth-token-operation";
import { REPORT_JOBS_API } from "../report-job-operations";
import { REPORT_API } from "../report-routes";
import { ZErrorBody, ZValidationEntry } from "../respond";
import { API_KEY, type ApiContribution, CLIENT_BASIC, jsonSchemaOf, OAUTH2, SHARED_HEADERS } from "./registry";
import { SHARED_RESPONSES } from "./shared-responses";

export const OPENAPI_TAG = "Documentation";
/** The version of the API this document describes: raised with every change a client would notice. */
export const API_VERSION = "1.2.0";

const DOCUMENT_API: ApiContribution = {
  tags: [{ name: OPENAPI_TAG, description: "This document, also rendered at /docs/api." }],
  schemas: {},
  operations: [
    {
      method: "get",
      path: "/openapi.json",
      operationId: "getOpenApiDocument",
      tags: [OPENAPI_TAG],
      summary: "This document",
      description: "Tally's OpenAPI 3.1 document, public, cached for a few minutes, readable from any origin.",
      responses: { "200": { description: "The document.", content: { "application/json": { schema: { type: "object" } } } } },
    },
  ],
};

/** Every route module's part; a new one is added here. */
export const API_CONTRIBUTIONS: readonly ApiContribution[] = [EVENTS_API, REPORT_API, HOURS_API, REPORT_JOBS_API, OAUTH_API, DOCUMENT_API];

export interface DocumentOptions {
  /** Where the report routes are served: the base URL, else the request's origin. */
  serverUrl: string;
  /** Where the /v1 routes are served, when another host (TALLY_EVENTS_URL). */
  eventsUrl?: string | null;
  version: string;
}

/** The document for these servers. */
export function buildOpenApiDocument({ serverUrl, eventsUrl, version }: DocumentOptions) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path, servers, ...operation } of API_CONTRIBUTIONS.flatMap((c) => c.operations)) {
    paths[path] ??= {};
    const item = paths[path];
    if (item[method]) throw new Error(`${method.toUpperCase()} ${path} is described twice`);
    const eventsServers = eventsUrl && path.startsWith("/v1/") ? [{ url: eventsUrl, description: "The events host." }] : undefined;
    item[method] = { ...operation, ...((servers ?? eventsServers) ? { servers: servers ?? eventsServers } : {}) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Tally API",
      version,
      summary: "Retail media measurement: ads, beacons, orders and reports.",
      description:
        "Tally serves ads for a store's pages, records their impressions, views and clicks and the store's orders, attributes the orders to the ads, and reports the figures. Report routes and report jobs take a Tally API key (`Authorization: Bearer tly_…`) or an OAuth access token from /oauth/token (`Authorization: Bearer tat_…`); their answers carry the RateLimit-Policy and RateLimit fields. See /docs/api for this document rendered, and /docs/api-guide (docs/api.md) for generating a client.",
      license: { name: "Proprietary", identifier: "LicenseRef-Tally" },
    },
    servers: [{ url: serverUrl, description: "This Tally." }],
    tags: API_CONTRIBUTIONS.flatMap((c) => c.tags),
    paths,
    components: {
      schemas: {
        Error: jsonSchemaOf(ZErrorBody),
        ValidationEntry: jsonSchemaOf(ZValidationEntry),
        ...Object.assign({}, ...API_CONTRIBUTIONS.map((c) => c.schemas)),
      },
      responses: SHARED_RESPONSES,
      headers: SHARED_HEADERS,
      securitySchemes: {
        [API_KEY]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "tly_…",
          description: "A Tally API key (tly_ and 32 characters), made on the dashboard's API keys page: Authorization: Bearer tly_….",
        },
        [CLIENT_BASIC]: {
          type: "http",
          scheme: "basic",
          description: "An OAuth client's id and secret at /oauth/token (RFC 6749 §2.3.1), each form-urlencoded before the pair is base64-encoded.",
        },
        [OAUTH2]: {
          type: "oauth2",
          description: "OAuth 2.0 client credentials: a client id and secret exchanged at /oauth/token for a short-lived bearer token.",
          flows: {
            clientCredentials: {
              tokenUrl: `${serverUrl}/oauth/token`,
              scopes: { "reports:read": "read reports", "reports:jobs": "create and read report jobs" },
            },
          },
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
