// The report routes' HTTP shell: who is asking, before any report is computed (docs/interface-decisions.md §5).
// Programs send a Bearer API key (tly_…), which names an account, or an OAuth access token (tat_…,
// docs/oauth.md), which names a client of an account and the scopes it was granted, from anywhere.
// The dashboard's downloads come with the signed-in session's cookie instead, and only from the
// dashboard's own pages or an address typed or bookmarked (403 when another site sent them): a
// member acts as their account, an account manager (staff) sees every account. Without either the
// answer is 401. Each route needs a scope (reports:read unless it says otherwise): API keys and
// sessions hold every scope, a token only its own (403 insufficient_scope, RFC 6750 §3.1).
// Then the caller's request is counted against its rate (report-rate-limit.ts): 429 past it, and
// every answer after that carries the RateLimit fields of where the caller stands.
import { authenticateApiKey } from "@/server/accounts/api-keys";
import type { OauthScope } from "@/server/accounts/oauth-client-input";
import { authenticateAccessToken, isAccessToken } from "@/server/accounts/oauth-tokens";
import { sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import type { Requester } from "@/server/pipeline/report/download-slots";
import { type ReportCaller, viewerCaller } from "@/server/pipeline/report/report-scope";
import { withRateLimitFields } from "./rate-limit-fields";
import { countReportRequest } from "./report-rate-limit";
import { assertSameOrigin } from "./request-origin";
import { errorResponse } from "./respond";

const BEARER = /^Bearer ([^\s]+)$/;
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="tally reports"' };
const INVALID_TOKEN = { "WWW-Authenticate": 'Bearer realm="tally reports", error="invalid_token"' };
const insufficientScope = (scope: OauthScope) => ({ "WWW-Authenticate": `Bearer realm="tally reports", error="insufficient_scope", scope="${scope}"` });

type ReportHandler = (request: Request, caller: ReportCaller, requester: Requester) => Promise<Response>;

export interface ReportRouteOptions {
  /** The scope an access token needs for this route; default reports:read. */
  scope?: OauthScope;
}

interface Asker {
  caller: ReportCaller;
  requester: Requester;
}

async function keyAsker(key: string): Promise<Asker | null> {
  const found = await authenticateApiKey(key);
  return found && { caller: found, requester: { caller: `key:${found.keyId}`, account: found.accountId } };
}

// A token's requests count against its client's rate, whichever token of the client it is.
async function tokenAsker(token: string): Promise<(Asker & { scopes: OauthScope[] }) | null> {
  const found = await authenticateAccessToken(token);
  if (!found) return null;
  const caller: ReportCaller = { accountId: found.accountId, accountKind: found.accountKind };
  return { caller, requester: { caller: `client:${found.clientId}`, account: found.accountId }, scopes: found.scopes };
}

async function sessionAsker(request: Request): Promise<Asker | null> {
  const token = sessionTokenOf(request);
  if (token === null) return null;
  assertSameOrigin(request);
  const viewer = await viewerOfSession(token);
  const caller = viewer ? await viewerCaller(viewer) : null;
  return caller && viewer && { caller, requester: { caller: `user:${viewer.userId}`, account: caller.accountId ?? "staff" } };
}

const INVALID_TOKEN_MESSAGE = "the access token is unknown, expired or revoked; get one from POST /oauth/token";

/** Who asks, or the answer that refuses them: an Authorization header decides alone, else the session. */
async function askerOf(request: Request, scope: OauthScope): Promise<Asker | Response> {
  const authorization = request.headers.get("authorization");
  const credential = BEARER.exec(authorization ?? "")?.[1];
  if (credential !== undefined && isAccessToken(credential)) {
    const asker = await tokenAsker(credential);
    if (!asker) return errorResponse(new TallyError("unauthorized", INVALID_TOKEN_MESSAGE), INVALID_TOKEN);
    if (!asker.scopes.includes(scope)) return errorResponse(new TallyError("forbidden", `the access token lacks the scope ${scope}`), insufficientScope(scope));
    return asker;
  }
  const asker = authorization !== null ? (credential !== undefined ? await keyAsker(credential) : null) : await sessionAsker(request);
  return asker ?? errorResponse(new TallyError("unauthorized", "send a live API key as Authorization: Bearer <key>"), CHALLENGE);
}

export function reportRoute(handler: ReportHandler, { scope = "reports:read" }: ReportRouteOptions = {}): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      const asker = await askerOf(request, scope);
      if (asker instanceof Response) return asker;
      const rate = await countReportRequest(asker.requester);
      if (rate.refusal) return errorResponse(rate.refusal, rate.fields);
      try {
        return withRateLimitFields(await handler(request, asker.caller, asker.requester), rate.fields);
      } catch (error) {
        return errorResponse(error, rate.fields);
      }
    } catch (error) {
      return errorResponse(error);
    }
  };
}
