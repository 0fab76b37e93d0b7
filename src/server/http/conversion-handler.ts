// POST /v1/beacon/conversion, with no transport in it: the Next.js route adapts a Fetch Request to
// it (events-routes.ts), the collector an IncomingMessage (src/collector/direct-routes.ts), so
// both serve exactly the same rules and answers.
import { z } from "zod";
import { type ApiKeyCaller, authenticateApiKey } from "@/server/accounts/api-keys";
import { TallyError } from "@/server/core/errors";
import { recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { type HttpAnswer, jsonAnswer } from "./answer";
import { eventsRoute, type PlainEventsRequest } from "./events-envelope";
import { limitKey, limitPublisher } from "./rate-limits";
import { readJson } from "./read-json-body";

/** The 202 body of an accepted order (the API document's ConversionAccepted). */
export const ZConversionAccepted = z.object({
  messages: z.array(z.string()).describe("Notes for the sender: a repeat ignored, a proof that did not hold…"),
  verified: z.boolean().describe("Whether the order came with proof (an API key or a valid order_token)."),
});

// An order of a few hundred lines fits; the decisions fix the limit at 256 KiB.
export const CONVERSION_BODY_LIMIT = 256 * 1024;

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * The API key a server sent the order with (docs/conversions.md, "Verified orders"), or null when
 * it sent none. A header that is not a live key is a 401 before the body is read: a server that
 * meant to verify its orders learns at once that it does not, and nothing is stored.
 */
async function orderKey(request: PlainEventsRequest): Promise<ApiKeyCaller | null> {
  const authorization = request.headers.get("authorization");
  if (authorization === null) return null;
  const match = BEARER.exec(authorization);
  const key = match ? await authenticateApiKey(match[1]!) : null;
  if (!key)
    throw new TallyError("unauthorized", "the Authorization header is not a live API key: send Authorization: Bearer <key>, or no Authorization header");
  return key;
}

/** 202 once the order is stored in the log of accepted orders; 422 with Ajv's error array; 401/403 for a key that cannot verify it. */
export const handleConversionRequest: (request: PlainEventsRequest) => Promise<HttpAnswer> = eventsRoute(
  "conversion",
  (request) => request.clientAddress,
  async (request) => {
    const key = await orderKey(request);
    const body = await readJson(request, CONVERSION_BODY_LIMIT);
    const publisherId = (body as { publisher_id?: unknown } | null)?.publisher_id;
    // A publisher's own server, proving its orders with its key, is counted per key, which no one
    // else can spend; anonymous orders count against the publisher and the client's address.
    if (key) await limitKey(key.keyId);
    else if (typeof publisherId === "string") await limitPublisher(publisherId, request.clientAddress);
    const { messages, verified } = await recordConversion(body, undefined, { key });
    const accepted: z.infer<typeof ZConversionAccepted> = { messages, verified };
    return jsonAnswer(202, accepted, { "Cache-Control": "no-store" });
  },
);
