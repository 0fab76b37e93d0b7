// The document is valid OpenAPI 3.1 by Redocly's recommended rules, and says what the routes do.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { METRIC_FIELDS } from "@/server/store/metrics";
import { reportQueryParameterNames } from "@/server/store/report-query";
import { API_VERSION, buildOpenApiDocument } from "./document";

const document = buildOpenApiDocument({ serverUrl: "https://reports.tally.test", eventsUrl: "https://events.tally.test", version: API_VERSION });
type Operation = { security?: unknown; requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> };
const operationAt = (path: string, method: "get" | "post") => (document.paths[path]?.[method] ?? { responses: {} }) as Operation;

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({
      extends: ["recommended"],
      rules: {
        // Tally's report and /v1 routes are public on purpose, each with its own scheme or none
        // (a beacon is proved by its signed address, an order by an optional key).
        "security-defined": "off",
        // A CORS preflight and this document itself have no client error to answer.
        "operation-4xx-response": "off",
      },
    });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "/openapi.json", config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("describes every report route, with every metric in each row", () => {
    const reports = [
      "/campaign/v2",
      "/campaign/{id}",
      "/ad/results/v2",
      "/report/v2/advertisers",
      "/report/v2/publishers",
      "/report/network/publishers",
      "/report/advertisers/campaigns-detailed",
      "/report/advertisers/ads-detailed",
    ];
    for (const path of reports) expect(document.paths[path]?.get, path).toBeDefined();
    const rows = [
      "CampaignListingRow",
      "AdResultsRow",
      "AdvertiserReportRow",
      "PublisherReportRow",
      "CampaignsDetailedRow",
      "AdsDetailedRow",
      "CampaignDetail",
      "CampaignDetail.daily",
    ];
    type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema };
    const schemas = document.components.schemas as Record<string, Schema>;
    for (const name of rows) {
      const row = name === "CampaignDetail.daily" ? schemas.CampaignDetail?.properties?.daily?.items : schemas[name];
      expect(Object.keys(row?.properties ?? {}), name).toEqual(expect.arrayContaining([...METRIC_FIELDS]));
      expect(row?.required, name).toEqual(expect.arrayContaining([...METRIC_FIELDS]));
    }
  });

  it("gives each report route the parameters its parser takes, with the parser's limits", () => {
    const operation = document.paths["/report/advertisers/ads-detailed"]?.get as { parameters: { name: string; schema: Record<string, unknown> }[] };
    expect(operation.parameters.map((p) => p.name)).toEqual(reportQueryParameterNames({ ids: ["advertiser_id", "campaign_id", "ad_id"], orderBy: ["day"] }));
    expect(operation.parameters.find((p) => p.name === "per_page")?.schema).toMatchObject({ maximum: 1000, default: 50 });
    expect(operation.parameters.find((p) => p.name === "order_by")?.schema).toMatchObject({ default: "day" });
    const detail = document.paths["/campaign/{id}"]?.get as { parameters: { name: string }[] };
    expect(detail.parameters.map((p) => p.name)).toEqual(["id", "start_date", "end_date", "time_zone", "download"]);
  });

  it("names the time zone of every report answer in its headers", () => {
    const responsesOf = (path: string) =>
      (document.paths[path]!.get as { responses: Record<string, { headers?: Record<string, { required?: boolean }> }> }).responses;
    for (const path of ["/campaign/v2", "/report/advertisers/ads-detailed", "/campaign/{id}"]) {
      expect(responsesOf(path)["200"]?.headers?.["Tally-Time-Zone"], path).toMatchObject({ required: true });
      expect(responsesOf(path)["200"]?.headers?.["Tally-Utc-Days-Before"], path).toBeDefined();
    }
  });

  it("declares the API key and OAuth2 client credentials, and the events host for /v1", () => {
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.components.securitySchemes.oauth2.flows.clientCredentials).toEqual({
      tokenUrl: "https://reports.tally.test/oauth/token",
      scopes: { "reports:read": "read reports", "reports:jobs": "create and read report jobs" },
    });
    expect(document.paths["/v1/beacon/conversion"]?.post).toMatchObject({ servers: [{ url: "https://events.tally.test" }] });
    expect(document.paths["/campaign/v2"]?.get).not.toHaveProperty("servers");
  });

  it("lets every report route take an API key or an OAuth token with reports:read, and the jobs reports:jobs", () => {
    const either = (scope: string) => [{ apiKey: [] }, { oauth2: [scope] }];
    expect(operationAt("/campaign/v2", "get").security).toEqual(either("reports:read"));
    expect(operationAt("/campaign/{id}", "get").security).toEqual(either("reports:read"));
    for (const [path, method] of [
      ["/report/jobs", "post"],
      ["/report/jobs", "get"],
      ["/report/jobs/{id}", "get"],
    ] as const) {
      expect(operationAt(path, method).security, `${method} ${path}`).toEqual(either("reports:jobs"));
    }
  });

  it("describes the token endpoint's form from the parser's parameters, and OAuth's errors", () => {
    const token = document.paths["/oauth/token"]?.post as {
      security: unknown;
      requestBody: { content: Record<string, unknown> };
      responses: Record<string, unknown>;
    };
    expect(token.security).toEqual([{ clientBasic: [] }, {}]);
    expect(Object.keys(token.requestBody?.content ?? {})).toEqual(["application/x-www-form-urlencoded"]);
    const schemas = document.components.schemas as Record<string, { properties: Record<string, { enum?: string[] }>; required?: string[] }>;
    expect(Object.keys(schemas.TokenRequest!.properties)).toEqual(["grant_type", "scope", "client_id", "client_secret"]);
    expect(schemas.TokenRequest!.properties.grant_type!.enum).toEqual(["client_credentials"]);
    expect(schemas.OAuthError!.properties.error!.enum).toEqual(expect.arrayContaining(["invalid_client", "too_many_requests", "temporarily_unavailable"]));
    expect(Object.keys(token.responses).sort()).toEqual(["200", "400", "401", "429", "500", "503"]);
    expect(token.responses["429"]).toMatchObject({
      headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" }, RateLimit: {}, "RateLimit-Policy": {} },
    });
  });

  it("declares the RateLimit fields once and on every counted answer", () => {
    expect(Object.keys(document.components.headers)).toEqual(expect.arrayContaining(["RateLimit-Policy", "RateLimit", "Retry-After"]));
    const rateLimited = { RateLimit: { $ref: "#/components/headers/RateLimit" }, "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" } };
    const responsesOf = (path: string, method: "get" | "post") => operationAt(path, method).responses;
    expect(responsesOf("/report/v2/advertisers", "get")["200"]).toMatchObject({ headers: rateLimited });
    expect(responsesOf("/report/v2/advertisers", "get")["429"]).toMatchObject({ headers: { ...rateLimited, "Retry-After": {} } });
    expect(responsesOf("/report/jobs", "post")["202"]).toMatchObject({ headers: { ...rateLimited, Location: { required: true } } });
    expect(responsesOf("/oauth/token", "post")["200"]).toMatchObject({ headers: rateLimited });
  });
});
