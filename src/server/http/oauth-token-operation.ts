// POST /oauth/token in the API document: its form, token and errors from the schemas the handler
// (oauth-token.ts) reads and answers with.

import { TOKEN_FAILURES_WINDOW_SECONDS, TOKEN_REQUESTS_WINDOW_SECONDS } from "@/server/accounts/oauth-token-limits";
import { FORM_TYPE, TOKEN_BODY_LIMIT_BYTES, ZOauthError, ZTokenAnswer, ZTokenForm } from "./oauth-token";
import {
  type ApiContribution,
  type ApiHeader,
  type ApiResponse,
  CLIENT_BASIC,
  headerRef,
  jsonSchemaOf,
  RATE_LIMIT_HEADERS,
  schemaRef,
} from "./openapi/registry";

export const OAUTH_TAG = "OAuth";

const NO_STORE: Record<string, ApiHeader> = {
  "Cache-Control": { description: "Tokens and their errors are never cached: no-store.", required: true, schema: { type: "string", const: "no-store" } },
  Pragma: { description: "no-cache, for HTTP/1.0 caches.", required: true, schema: { type: "string", const: "no-cache" } },
};

const oauthError = (description: string, headers: ApiResponse["headers"] = {}): ApiResponse => ({
  description,
  headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS, ...headers },
  content: { "application/json": { schema: schemaRef("OAuthError") } },
});

/** The token endpoint's part of the API document (src/server/http/openapi/). */
export const OAUTH_API: ApiContribution = {
  tags: [{ name: OAUTH_TAG, description: "OAuth 2.0 client credentials: a client's id and secret for a short-lived access token (docs/oauth.md)." }],
  schemas: { TokenRequest: jsonSchemaOf(ZTokenForm, "input"), Token: jsonSchemaOf(ZTokenAnswer), OAuthError: jsonSchemaOf(ZOauthError) },
  operations: [
    {
      method: "post",
      path: "/oauth/token",
      operationId: "createAccessToken",
      tags: [OAUTH_TAG],
      summary: "An access token for a client's id and secret",
      description: `RFC 6749 §4.4. The client authenticates with HTTP Basic, or with client_id and client_secret in the form (not both). Wrong secrets are counted per client and source address, and per client (RateLimit fields token-failures and client-failures, ${TOKEN_FAILURES_WINDOW_SECONDS}-second windows); requests with the right secret per client (token-requests, a ${TOKEN_REQUESTS_WINDOW_SECONDS}-second window): a stranger's wrong secrets never hold back an address that sent none; the body is at most ${TOKEN_BODY_LIMIT_BYTES} bytes. Errors are OAuth's own JSON, not Tally's error body.`,
      security: [{ [CLIENT_BASIC]: [] }, {}],
      requestBody: { required: true, description: "The form, each parameter at most once.", content: { [FORM_TYPE]: { schema: schemaRef("TokenRequest") } } },
      responses: {
        "200": {
          description: "The token.",
          headers: { ...NO_STORE, ...RATE_LIMIT_HEADERS },
          content: { "application/json": { schema: schemaRef("Token") } },
        },
        "400": oauthError(
          "invalid_request (a body that is not the form, a parameter twice, credentials both ways), unsupported_grant_type, or invalid_scope (a scope the client does not hold).",
        ),
        "401": oauthError("invalid_client: no credentials, unreadable ones, or an unknown, revoked or wrong id or secret.", {
          "WWW-Authenticate": { description: 'Basic realm="tally".', required: true, schema: { type: "string", pattern: "^Basic " } },
        }),
        "429": oauthError(
          "too_many_requests: past the wrong secrets allowed for this client from this address, or this address sent a wrong one while the client is guessed from many, or past the client's token requests a minute.",
          { "Retry-After": headerRef("Retry-After") },
        ),
        "503": oauthError("temporarily_unavailable: the database cannot answer now.", { "Retry-After": headerRef("Retry-After") }),
        "500": oauthError("server_error."),
      },
    },
  ],
};
