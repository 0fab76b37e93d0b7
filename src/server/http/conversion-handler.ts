// POST /v1/beacon/conversion, with no transport in it: the Next.js route adapts a Fetch Request to
// it (events-routes.ts), the collector an IncomingMessage (src/collector/direct-routes.ts), so
// both serve exactly the same rules and answers.
import { recordConversion } from "@/server/conversions/record-conversion";
import { type HttpAnswer, jsonAnswer } from "./answer";
import { eventsRoute, type PlainEventsRequest } from "./events-route";
import { limitPublisher } from "./rate-limits";
import { readJson } from "./read-json-body";

// An order of a few hundred lines fits; the decisions fix the limit at 256 KiB.
export const CONVERSION_BODY_LIMIT = 256 * 1024;

/** 202 once the order is stored in the log of accepted orders; 422 with Ajv's error array. */
export const handleConversionRequest: (request: PlainEventsRequest) => Promise<HttpAnswer> = eventsRoute(
  "conversion",
  (request) => request.clientAddress,
  async (request) => {
    const body = await readJson(request, CONVERSION_BODY_LIMIT);
    const publisherId = (body as { publisher_id?: unknown } | null)?.publisher_id;
    if (typeof publisherId === "string") await limitPublisher(publisherId, request.clientAddress);
    const { messages } = await recordConversion(body);
    return jsonAnswer(202, { messages }, { "Cache-Control": "no-store" });
  },
);
