// POST /oauth/token (RFC 6749 §4.4, client credentials; docs/oauth.md): read the form, find the
// client's credentials and the request's source address, then let the accounts domain check the
// secret within the endpoint's limits (per client and source address:
// src/server/accounts/oauth-token-limits.ts) and issue the token. Answers and errors are OAuth's
// own JSON (§5.1, §5.2), never cached, rather than Tally's error body: OAuth client libraries
// read them. Once a client id is counted, every answer carries the RateLimit fields of its standing.
import { z } from "zod";
import { OAUTH_SCOPES } from "@/server/accounts/oauth-client-input";
import { grantWithinLimits, type LimitedGrant, TOKEN_FAILURES_WINDOW_SECONDS } from "@/server/accounts/oauth-token-limits";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { answerResponse, type HttpAnswer, jsonAnswer } from "./answer";
import { clientAddress, clientAddressHash } from "./client-address";
import { clientCredentialsOf } from "./oauth-client-auth";
import { type RateOutcome, rateLimitFields } from "./rate-limit-fields";
import { readBodyWithin } from "./read-json-body";
import { toTallyError } from "./respond";

/** A token request's form is a few short parameters. */
export const TOKEN_BODY_LIMIT_BYTES = 4096;
export const FORM_TYPE = "application/x-www-form-urlencoded";
export const GRANT_TYPES = ["client_credentials"] as const;
const scopeWord = `(${OAUTH_SCOPES.join("|")})`;

/**
 * The form a token request sends: its parameters are the ones readForm reads, and the API
 * document's request body (oauth-token-operation.ts). Its checks are the handler's own, in the
 * order of RFC 6749's errors, so this schema describes rather than validates.
 */
export const ZTokenForm = z.object({
  grant_type: z.enum(GRANT_TYPES).describe("Only client_credentials."),
  scope: z
    .string()
    .regex(new RegExp(`^${scopeWord}( ${scopeWord})*$`))
    .optional()
    .describe("Space-separated scopes, each one the client holds; absent: every scope of the client."),
  client_id: z.string().optional().describe("The client's id, when not sent with HTTP Basic."),
  client_secret: z.string().optional().describe("The client's secret, with client_id."),
});
const PARAMETERS = ZTokenForm.keyof().options;
type Form = Partial<Record<(typeof PARAMETERS)[number], string>>;

/** A token (RFC 6749 §5.1). */
export const ZTokenAnswer = z.object({
  access_token: z.string().describe("The bearer token (tat_…) for the report routes and jobs."),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int().positive().describe("Seconds until the token expires."),
  scope: z.string().describe("The scopes granted, space-separated."),
});

/** The error codes this endpoint answers with (RFC 6749 §5.2, and RFC 6585's rate limit). */
export const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "unsupported_grant_type",
  "invalid_scope",
  "too_many_requests",
  "temporarily_unavailable",
  "server_error",
] as const;
export const ZOauthError = z.object({ error: z.enum(OAUTH_ERRORS), error_description: z.string() });

export interface TokenAnswer extends HttpAnswer {
  /** Where the client stood against the quotas it was counted against; null when it was not counted (refused before, or an id of no client's form). */
  rateLimit: RateOutcome | null;
}

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };
const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="tally"' };

function oauthError(status: number, error: (typeof OAUTH_ERRORS)[number], description: string, headers: Record<string, string> = {}): HttpAnswer {
  const body: z.infer<typeof ZOauthError> = { error, error_description: description };
  return jsonAnswer(status, body, { ...NO_STORE, ...headers });
}

const invalidRequest = (description: string) => oauthError(400, "invalid_request", description);
// Every 401 challenges Basic, the scheme a client may use; a refused secret reads the same however it came.
const invalidClient = (description = "client authentication failed") => oauthError(401, "invalid_client", description, BASIC_CHALLENGE);

/** The form's parameters, or the answer to a body that is not one (RFC 6749 §3.2: each at most once; an empty one is absent). */
async function readForm(request: Request): Promise<Form | HttpAnswer> {
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== FORM_TYPE) return invalidRequest(`send the parameters as ${FORM_TYPE}`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await readBodyWithin(request, TOKEN_BODY_LIMIT_BYTES));
  } catch (error) {
    if (error instanceof TallyError && error.code === "payload_too_large") return invalidRequest(`the body is larger than ${TOKEN_BODY_LIMIT_BYTES} bytes`);
    if (error instanceof TypeError) return invalidRequest("the body is not UTF-8");
    throw error;
  }
  const params = new URLSearchParams(text);
  const form: Form = {};
  for (const name of PARAMETERS) {
    const values = params.getAll(name);
    if (values.length > 1) return invalidRequest(`${name} is given more than once`);
    if (values[0]) form[name] = values[0];
  }
  return form;
}

const REFUSALS: Record<Exclude<LimitedGrant["refused"], false>, (limit: number) => string> = {
  address: (limit) =>
    `more than ${limit} wrong secrets for this client from this address in ${TOKEN_FAILURES_WINDOW_SECONDS / 60} minutes; retry after the wait in Retry-After`,
  client: () =>
    "this client has had many wrong secrets from many addresses, and this address sent one of them; retry after the wait in Retry-After (an address with no wrong secret is not held back)",
  requests: (limit) => `too many token requests for this client: at most ${limit} a minute; retry after the wait in Retry-After`,
};

/** The answer to an error of Tally's own (the database, a bug) in OAuth's shape. */
function failureAnswer(error: unknown): HttpAnswer {
  const failure = toTallyError(error);
  if (failure.code === "unavailable") return oauthError(503, "temporarily_unavailable", failure.message, { "Retry-After": "5" });
  logger().error({ cause: failure.details?.cause instanceof Error ? failure.details.cause.message : String(error) }, "oauth token request failed");
  return oauthError(500, "server_error", "internal error");
}

async function tokenAnswer(request: Request, now: Date): Promise<TokenAnswer> {
  const form = await readForm(request);
  if ("status" in form) return { ...form, rateLimit: null };
  if (!form.grant_type) return { ...invalidRequest("grant_type is required"), rateLimit: null };
  if (!(GRANT_TYPES as readonly string[]).includes(form.grant_type)) {
    return { ...oauthError(400, "unsupported_grant_type", "only grant_type=client_credentials is supported"), rateLimit: null };
  }
  const credentials = clientCredentialsOf(request.headers.get("authorization"), form);
  if (credentials.found === "both") {
    return { ...invalidRequest("authenticate with HTTP Basic or with client_id and client_secret in the body, not both"), rateLimit: null };
  }
  if (credentials.found !== "credentials") {
    const description = credentials.basicTried ? "the Basic credentials are not client_id:client_secret" : "send the client's id and secret";
    return { ...invalidClient(description), rateLimit: null };
  }
  const source = clientAddressHash(clientAddress(request));
  const limited = await grantWithinLimits({ clientId: credentials.clientId, clientSecret: credentials.clientSecret, scope: form.scope ?? null, source }, now);
  const rateLimit = limited.states.length > 0 ? { policies: limited.policies, states: limited.states } : null;
  if (limited.refused) {
    const retryAfter = String(Math.max(1, Math.ceil(limited.retryAfterMs / 1000)));
    return { ...oauthError(429, "too_many_requests", REFUSALS[limited.refused](limited.limit), { "Retry-After": retryAfter }), rateLimit };
  }
  const { grant } = limited;
  if (!grant.granted) {
    return { ...(grant.error === "invalid_client" ? invalidClient() : oauthError(400, grant.error, grant.description)), rateLimit };
  }
  const body: z.infer<typeof ZTokenAnswer> = {
    access_token: grant.accessToken,
    token_type: "Bearer",
    expires_in: grant.expiresInSeconds,
    scope: grant.scopes.join(" "),
  };
  return { ...jsonAnswer(200, body, NO_STORE), rateLimit };
}

/** The token endpoint's answer, with the client's standing against its rate limit. */
export async function answerTokenRequest(request: Request, now = new Date()): Promise<TokenAnswer> {
  try {
    return await tokenAnswer(request, now);
  } catch (error) {
    return { ...failureAnswer(error), rateLimit: null };
  }
}

export async function handleTokenRequest(request: Request): Promise<Response> {
  const answer = await answerTokenRequest(request);
  const fields = answer.rateLimit ? rateLimitFields(answer.rateLimit) : {};
  return answerResponse({ ...answer, headers: { ...answer.headers, ...fields } });
}
