// The pieces of Tally's OpenAPI document (docs/api.md): each route module contributes its
// operations, the schemas they name and its tags; document.ts puts them together. Every schema here
// is converted from the one that validates or types the payload (zod, or the Ajv contract), so a
// change to validation changes the document with no second edit.
import { z } from "zod";

export type HttpMethod = "get" | "post" | "options";

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = Record<string, unknown>;

export interface ApiHeader {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface ApiResponse {
  description: string;
  headers?: Record<string, ApiHeader | { $ref: string }>;
  content?: Record<string, { schema: JsonSchema; example?: unknown }>;
}

export interface ApiParameter {
  name: string;
  in: "query" | "path" | "header";
  required?: boolean;
  description: string;
  schema: JsonSchema;
  example?: unknown;
}

export interface ApiOperation {
  method: HttpMethod;
  /** The OpenAPI path template: /campaign/{id}. */
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  /** Omitted: the document's default (none). `[{}]` in the list makes a scheme optional. */
  security?: Record<string, string[]>[];
  parameters?: ApiParameter[];
  requestBody?: { required: boolean; description: string; content: Record<string, { schema: JsonSchema; example?: unknown }> };
  /** Status (or "default") to answer; a string is a `$ref` to a shared response of document.ts. */
  responses: Record<string, ApiResponse | { $ref: string }>;
  /** Another server than the document's (the events host for /v1). */
  servers?: { url: string; description: string }[];
}

export interface ApiContribution {
  tags: { name: string; description: string }[];
  /** Named schemas, under #/components/schemas/. */
  schemas: Record<string, JsonSchema>;
  operations: ApiOperation[];
}

/** A zod schema as JSON Schema 2020-12, as it describes what Tally sends (output) or accepts (input). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "throw" }) as JsonSchema;
  return rest;
}

/** An Ajv schema (draft-07 written so 2020-12 reads it the same) as a plain, deep-copied object. */
export function jsonSchemaOfContract(schema: object): JsonSchema {
  return structuredClone(schema) as JsonSchema;
}

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: SharedHeader) => ({ $ref: `#/components/headers/${name}` });
export const responseRef = (name: SharedResponse) => ({ $ref: `#/components/responses/${name}` });

/** The error answers document.ts declares once (respond.ts makes them). */
export type SharedResponse =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "Gone"
  | "PayloadTooLarge"
  | "UnsupportedMediaType"
  | "ValidationFailed"
  | "TooManyRequests"
  | "Unavailable";

/** The header fields document.ts declares once. */
export type SharedHeader = "RateLimit-Policy" | "RateLimit" | "Retry-After";

const policyItem = '"[^"]*";q=[0-9]+;w=[0-9]+';
const stateItem = '"[^"]*";r=[0-9]+;t=[0-9]+';
const listOf = (item: string) => `^${item}(, ${item})*$`;

/** Shared header fields, written the way rate-limit-fields.ts and respond.ts write them. */
export const SHARED_HEADERS: Record<SharedHeader, ApiHeader> = {
  "RateLimit-Policy": {
    description:
      "The quotas of the caller's credential (IETF RateLimit fields): each named policy allows q requests in w seconds. Sent on every answer once the request was counted; absent when no limit is set.",
    schema: { type: "string", pattern: listOf(policyItem) },
  },
  RateLimit: {
    description: "What this request left of the quotas it was counted against: r requests remain, the count starts again in t seconds.",
    schema: { type: "string", pattern: listOf(stateItem) },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", required: true, schema: { type: "string", pattern: "^[1-9][0-9]*$" } },
};

/** The RateLimit fields, as a counted answer declares them. */
export const RATE_LIMIT_HEADERS = { "RateLimit-Policy": headerRef("RateLimit-Policy"), RateLimit: headerRef("RateLimit") };

/** The scheme names of document.ts's securitySchemes. */
export const API_KEY = "apiKey";
export const OAUTH2 = "oauth2";
export const CLIENT_BASIC = "clientBasic";
