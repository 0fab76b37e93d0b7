// The one error type of Tally's domain. Domain functions throw it; the HTTP wrapper
// (src/server/http/respond.ts) is the one place that turns it into a status code and body.

export type TallyErrorCode =
  | "bad_request" // 400: malformed JSON, bad query parameter
  | "unauthorized" // 401
  | "forbidden" // 403: a cross-site request carrying a session cookie
  | "not_found" // 404: unknown route, bad beacon signature, another tenant's object
  | "method_not_allowed" // 405
  | "gone" // 410: expired beacon token
  | "payload_too_large" // 413
  | "unsupported_media_type" // 415
  | "validation_failed" // 422: body carries Ajv-style entries
  | "too_many_requests" // 429: a rate limit; `retryAfterSeconds` says when to come back
  | "unavailable" // 503: the database cannot store the request now
  | "internal"; // 500

/** One entry of a 422 body, exactly as Ajv 8 reports a violation. */
export interface ValidationEntry {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * Most entries a 422 lists: with `allErrors`, an order of 500 empty lines has 2,000 violations,
 * and the answer stays a few KiB instead of hundreds. The first ones are enough to fix a client.
 */
export const MAX_VALIDATION_ENTRIES = 100;

export class TallyError extends Error {
  constructor(
    readonly code: TallyErrorCode,
    message: string,
    /**
     * `fields`: header fields the answer carries, such as where a caller stands against a rate limit (RateLimit-Policy, RateLimit).
     * `fieldErrors`: the input fields a refusal is about, each with its problem, so a form shows it beside that field.
     */
    readonly details?: {
      entries?: ValidationEntry[];
      cause?: unknown;
      retryAfterSeconds?: number;
      fields?: Record<string, string>;
      fieldErrors?: Record<string, string>;
    },
  ) {
    super(message);
    this.name = "TallyError";
  }

  /**
   * A refusal about one input field. The message still names the field first ("productRefs: SKU …")
   * for callers that read only the message (the CLIs, logs); forms read `fieldErrors`.
   */
  static field(field: string, problem: string, code: TallyErrorCode = "bad_request"): TallyError {
    return new TallyError(code, `${field}: ${problem}`, { fieldErrors: { [field]: problem } });
  }

  static validation(entries: ValidationEntry[]): TallyError {
    return new TallyError("validation_failed", "request body failed validation", { entries: entries.slice(0, MAX_VALIDATION_ENTRIES) });
  }
}
