// The events host's routes (/v1, events-routes.ts) in the API document: request bodies are the
// Ajv schemas their handlers validate with, answers the schemas their handlers build.
import { z } from "zod";
import type { AdQueryAnswer } from "@/contracts/ad-query-answer";
import { conversionBodySchema } from "@/contracts/conversion.schema";
import { adQuerySchema } from "@/server/pipeline/accept/ads/ad-query.schema";
import { beaconBodySchema } from "@/server/pipeline/accept/beacons/beacon-body.schema";
import { ZConversionAccepted } from "./conversion-handler";
import {
  API_KEY,
  type ApiContribution,
  type ApiOperation,
  type ApiResponse,
  headerRef,
  jsonSchemaOf,
  jsonSchemaOfContract,
  responseRef,
  schemaRef,
} from "./openapi/registry";

export const ZServedAd = z.object({
  ad_id: z.string(),
  campaign_id: z.string(),
  type: z.enum(["product", "banner", "video"]),
  sku: z.string().optional().describe("The product through which a product ad matched the page."),
  media_url: z.string().optional(),
  size: z.string().optional().describe('"WIDTHxHEIGHT", for example "728x90".'),
  destination_url: z.string().optional(),
  impression_url: z.string().describe("POST here (a beacon) when the ad is rendered."),
  view_url: z.string().describe("POST here when the ad is seen."),
  click_url: z.string().describe("POST here when the ad is clicked."),
});

export const ZAdQueryAnswer = z.object({
  request_id: z.string(),
  ads: z.record(z.string(), z.array(ZServedAd)).describe("Every placement asked for, by name, in the order given; empty when nothing was eligible."),
});
// The SDK reads the answer through its TypeScript type: the two must be the same, both ways.
const sameAnswer: [z.infer<typeof ZAdQueryAnswer>, AdQueryAnswer] extends [AdQueryAnswer, z.infer<typeof ZAdQueryAnswer>] ? true : never = true;
void sameAnswer;

export const EVENTS_TAG = "Events";
const EVENTS_HOST = "The events host (TALLY_EVENTS_URL; the same host unless set).";

const CORS_ORIGIN = {
  description: "The request's Origin, reflected (with credentials) when it sent one.",
  schema: { type: "string" },
};

/** The CORS preflight every /v1 route answers. */
function preflight(path: string, operationId: string, parameters: ApiOperation["parameters"] = []): ApiOperation {
  return {
    method: "options",
    path,
    operationId,
    tags: [EVENTS_TAG],
    summary: "CORS preflight",
    description: "Browsers ask before posting from a page of another origin; the answer is good for a day.",
    parameters,
    responses: {
      "204": {
        description: "The methods and headers a page may send.",
        headers: {
          "Access-Control-Allow-Methods": { description: "POST, OPTIONS", required: true, schema: { type: "string" } },
          "Access-Control-Max-Age": { description: "86400", required: true, schema: { type: "string" } },
        },
      },
    },
  };
}

const accepted = (description: string, content?: ApiResponse["content"]): ApiResponse => ({
  description,
  headers: { "Access-Control-Allow-Origin": CORS_ORIGIN },
  ...(content ? { content } : {}),
});

const BODY_ERRORS = {
  "400": responseRef("BadRequest"),
  "413": responseRef("PayloadTooLarge"),
  "415": responseRef("UnsupportedMediaType"),
  "422": responseRef("ValidationFailed"),
  "429": responseRef("TooManyRequests"),
  "503": responseRef("Unavailable"),
};

/** The 429 of a route that also meets its publisher's daily ceiling (src/server/pipeline/accept/intake-ceiling.ts). */
const pastLimitOrCeiling = (ceiling: string): ApiResponse => ({
  description: `Past a rate limit (Retry-After: seconds), or ${ceiling} (Retry-After: the seconds until 00:00 UTC; the message says which).`,
  headers: { "Retry-After": headerRef("Retry-After") },
  content: { "application/json": { schema: schemaRef("Error") } },
});

const json = (schema: Record<string, unknown>, example?: unknown) => ({
  "application/json": { schema, ...(example === undefined ? {} : { example }) },
  "text/plain": { schema },
});

const BEACON_PARAMETERS: ApiOperation["parameters"] = [
  {
    name: "kind",
    in: "path",
    required: true,
    description: "Which event the address records.",
    schema: { type: "string", enum: ["impression", "view", "click"] },
  },
  { name: "token", in: "path", required: true, description: "The signed token of the address, as the ad query gave it.", schema: { type: "string" } },
];

/** The /v1 routes' part of the API document. */
export const EVENTS_API: ApiContribution = {
  tags: [{ name: EVENTS_TAG, description: "Ads for a page, and the beacons and orders a store's pages and servers send. Served on the events host." }],
  schemas: {
    AdQuery: jsonSchemaOfContract(adQuerySchema),
    AdQueryAnswer: jsonSchemaOf(ZAdQueryAnswer),
    BeaconBody: jsonSchemaOfContract(beaconBodySchema),
    Conversion: jsonSchemaOfContract(conversionBodySchema),
    ConversionAccepted: jsonSchemaOf(ZConversionAccepted),
  },
  operations: [
    {
      method: "post",
      path: "/v1/ads",
      operationId: "queryAds",
      tags: [EVENTS_TAG],
      summary: "Ads for a page's placements",
      description: `Eligible ads for each placement, each with signed impression, view and click addresses bound to the session that asked. ${EVENTS_HOST}`,
      requestBody: {
        required: true,
        description: "The page, its shopper's session and its placements (application/json, or text/plain holding JSON for sendBeacon).",
        content: json(schemaRef("AdQuery"), {
          publisher_id: "pub_demo",
          session_id: "s-1",
          context: "home",
          placements: [{ name: "hero", types: ["banner"], size: "728x90" }],
        }),
      },
      responses: {
        "200": {
          ...accepted("The ads, by placement."),
          content: { "application/json": { schema: schemaRef("AdQueryAnswer") } },
        },
        ...BODY_ERRORS,
      },
    },
    preflight("/v1/ads", "queryAdsPreflight"),
    {
      method: "post",
      path: "/v1/beacon/{kind}/{token}",
      operationId: "recordBeacon",
      tags: [EVENTS_TAG],
      summary: "Record an impression, view or click",
      description: `Posted to an address the ad query gave. 202 once the event is stored; it is counted, or filtered as invalid traffic, when settled. ${EVENTS_HOST}`,
      parameters: BEACON_PARAMETERS,
      requestBody: {
        required: true,
        description: "The shopper's session (and user, when known).",
        content: json(schemaRef("BeaconBody"), { session_id: "s-1" }),
      },
      responses: {
        "202": accepted("Stored; no body."),
        "404": responseRef("NotFound"),
        "410": responseRef("Gone"),
        ...BODY_ERRORS,
        "429": pastLimitOrCeiling("the publisher's beacons reached the day's ceiling (TALLY_BEACONS_PER_PUBLISHER_DAY, TALLY_BEACON_MB_PER_PUBLISHER_DAY)"),
      },
    },
    preflight("/v1/beacon/{kind}/{token}", "recordBeaconPreflight", BEACON_PARAMETERS),
    {
      method: "post",
      path: "/v1/beacon/conversion",
      operationId: "recordConversion",
      tags: [EVENTS_TAG],
      summary: "Record an order",
      description: `An order from a store's checkout or server, attributed to the ads its shopper saw. Sent with an API key (or a valid order_token) it counts as verified; only verified orders are credited (conversions, sales, ROAS), unless the publisher opts in to credit orders without proof, and the others are reported as unverified. 202 once stored; 422 lists every violation as Ajv reports it. ${EVENTS_HOST}`,
      security: [{}, { [API_KEY]: [] }],
      requestBody: { required: true, description: "The order and its lines.", content: json(schemaRef("Conversion")) },
      responses: {
        "202": accepted("Stored.", { "application/json": { schema: schemaRef("ConversionAccepted"), example: { messages: [], verified: true } } }),
        "401": responseRef("Unauthorized"),
        "403": responseRef("Forbidden"),
        ...BODY_ERRORS,
        "429": pastLimitOrCeiling(
          "an order without proof when the publisher's unproven orders reached the day's ceiling (TALLY_UNPROVEN_ORDERS_PER_PUBLISHER_DAY, TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY); an order with the publisher's API key or a valid order_token is never refused by it",
        ),
      },
    },
    preflight("/v1/beacon/conversion", "recordConversionPreflight"),
  ],
};
