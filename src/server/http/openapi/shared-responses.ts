// The error answers every route shares (respond.ts makes them), declared once under
// #/components/responses/; a route whose requests are counted against a rate limit declares the
// same answers with the RateLimit fields (countedError).
import { type ApiResponse, headerRef, RATE_LIMIT_HEADERS, type SharedResponse, schemaRef } from "./registry";

const retryAfter = headerRef("Retry-After");

const errorAnswer = (description: string, headers?: ApiResponse["headers"]): ApiResponse => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: schemaRef("Error") } },
});

export const SHARED_RESPONSES: Record<SharedResponse, ApiResponse> = {
  BadRequest: errorAnswer("A malformed request: a query parameter, a body that is not JSON. The message names what is wrong."),
  Unauthorized: errorAnswer("No live API key, access token (or session).", {
    "WWW-Authenticate": {
      description: 'The scheme expected: Bearer (with error="invalid_token" for an unknown, expired or revoked access token).',
      required: true,
      schema: { type: "string" },
    },
  }),
  Forbidden: errorAnswer(
    "The caller may not do this: an access token without the scope the route needs (WWW-Authenticate names it), a key that cannot verify this publisher's orders, a session cookie sent by another site.",
  ),
  NotFound: errorAnswer(
    "Nothing here for this caller: an unknown object, another account's, a report for another kind of account, a beacon address that is not Tally's.",
  ),
  Gone: errorAnswer("The beacon address has expired."),
  PayloadTooLarge: errorAnswer("The body is larger than the route accepts."),
  UnsupportedMediaType: errorAnswer("The body is neither application/json nor text/plain."),
  ValidationFailed: {
    description: "The body breaks the schema (or a rule that needs the database or the clock): every violation, as Ajv 8 reports it.",
    content: { "application/json": { schema: { type: "array", items: schemaRef("ValidationEntry") } } },
  },
  TooManyRequests: errorAnswer("Past a rate limit.", { "Retry-After": retryAfter }),
  Unavailable: errorAnswer("The database cannot answer now.", { "Retry-After": retryAfter }),
};

/** A shared error answer of a route whose requests are counted: the same, with the RateLimit fields. */
export function countedError(name: SharedResponse): ApiResponse {
  const shared = SHARED_RESPONSES[name];
  return { ...shared, headers: { ...shared.headers, ...RATE_LIMIT_HEADERS } };
}
