// The report routes' HTTP shell: who is asking, before any report is computed (docs/interface-decisions.md §5).
// Programs send a Bearer API key, which names an account, from anywhere. The dashboard's downloads
// come with the signed-in session's cookie instead, and only from the dashboard's own pages or
// an address typed or bookmarked (403 when another site sent them): a member acts as their
// account, an account manager (staff) sees every account. Without either the answer is 401.
// Then the caller's request is counted against its rate (report-rate-limit.ts): 429 past it, and
// every answer after that carries the RateLimit fields of where the caller stands.
import { authenticateApiKey } from "@/server/accounts/api-keys";
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

type ReportHandler = (request: Request, caller: ReportCaller, requester: Requester) => Promise<Response>;

interface Asker {
  caller: ReportCaller;
  requester: Requester;
}

async function keyAsker(key: string): Promise<Asker | null> {
  const found = await authenticateApiKey(key);
  return found && { caller: found, requester: { caller: `key:${found.keyId}`, account: found.accountId } };
}

async function sessionAsker(request: Request): Promise<Asker | null> {
  const token = sessionTokenOf(request);
  if (token === null) return null;
  assertSameOrigin(request);
  const viewer = await viewerOfSession(token);
  const caller = viewer ? await viewerCaller(viewer) : null;
  return caller && viewer && { caller, requester: { caller: `user:${viewer.userId}`, account: caller.accountId ?? "staff" } };
}

export function reportRoute(handler: ReportHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      const authorization = request.headers.get("authorization");
      const match = BEARER.exec(authorization ?? "");
      const asker = authorization !== null ? (match ? await keyAsker(match[1]!) : null) : await sessionAsker(request);
      if (!asker) {
        return errorResponse(new TallyError("unauthorized", "send a live API key as Authorization: Bearer <key>"), CHALLENGE);
      }
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
