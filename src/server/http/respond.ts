// The one place where errors become HTTP answers.
import { z } from "zod";
import { TallyError, type TallyErrorCode, type ValidationEntry } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { answerResponse, type HttpAnswer, jsonAnswer } from "./answer";

const STATUS: Record<TallyErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  too_many_requests: 429,
  unavailable: 503,
  internal: 500,
};

const ERROR_CODES = Object.keys(STATUS) as [TallyErrorCode, ...TallyErrorCode[]];

/** The body of every error answer but a 422 (the API document's Error). */
export const ZErrorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES).describe("What went wrong, for a program: one code per status."),
    message: z.string().describe("What went wrong, for a person: names the parameter or field at fault."),
  }),
});

/** One entry of a 422 body, exactly as Ajv 8 reports a violation. */
export const ZValidationEntry = z.object({
  instancePath: z.string().describe("JSON Pointer to the value at fault: /items/0/price."),
  schemaPath: z.string(),
  keyword: z.string().describe("The rule broken: required, type, maximum, format…"),
  params: z.record(z.string(), z.unknown()),
  message: z.string().optional(),
});
const sameEntry: [z.infer<typeof ZValidationEntry>, ValidationEntry] extends [ValidationEntry, z.infer<typeof ZValidationEntry>] ? true : never = true;
void sameEntry;

// Connection-level failures: the database is down or unreachable, not a bug in the request.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08006",
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  const candidate = error as { code?: string; message?: string } | undefined;
  if (candidate?.code && UNAVAILABLE_CODES.has(candidate.code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(candidate?.message ?? "");
}

export function toTallyError(error: unknown): TallyError {
  if (error instanceof TallyError) return error;
  if (isDatabaseUnavailable(error)) return new TallyError("unavailable", "the database is unavailable; retry later", { cause: error });
  return new TallyError("internal", "internal error", { cause: error });
}

/**
 * 503 and 429 say when to come back: a rate limit knows its own wait, the database a few seconds;
 * a 401 says what would be accepted (a route may name its own realm).
 */
function statusHeaders(error: TallyError, status: number, headers: Record<string, string>): Record<string, string> {
  if (status === 401 && headers["WWW-Authenticate"] === undefined) return { "WWW-Authenticate": 'Bearer realm="tally"' };
  if (status === 429) return { ...error.details?.fields, "Retry-After": String(Math.max(1, Math.ceil(error.details?.retryAfterSeconds ?? 1))) };
  if (status === 503) return { "Retry-After": String(Math.max(1, Math.ceil(error.details?.retryAfterSeconds ?? 5))) };
  return {};
}

/** The answer to an error, whatever carries it: a status from the error's code, a JSON body, no caching. */
export function errorAnswer(error: unknown, headers: Record<string, string> = {}): HttpAnswer {
  const tallyError = toTallyError(error);
  const status = STATUS[tallyError.code];
  if (status >= 500) {
    const cause = tallyError.details?.cause;
    logger().error(
      { status, requestId: headers["X-Request-Id"], cause: cause instanceof Error ? cause.message : cause === undefined ? undefined : String(cause) },
      tallyError.message,
    );
  }
  // A 422 body is the validator's array itself (docs/interface.md §7); other errors name a code.
  const body: ValidationEntry[] | z.infer<typeof ZErrorBody> =
    tallyError.code === "validation_failed" ? (tallyError.details?.entries ?? []) : { error: { code: tallyError.code, message: tallyError.message } };
  return jsonAnswer(status, body, { ...headers, "Cache-Control": "no-store", ...statusHeaders(tallyError, status, headers) });
}

export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  return answerResponse(errorAnswer(error, headers));
}
