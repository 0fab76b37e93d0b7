// The report routes' HTTP shell: who is asking, before any report is computed (docs/interface-decisions.md §5).
// Programs send a Bearer API key, which names an account, from anywhere. The dashboard's downloads
// come with the signed-in session's cookie instead, and only from the dashboard's own pages or
// an address typed or bookmarked (403 when another site sent them): a member acts as their
// account, an account manager (staff) sees every account. Without either the answer is 401.
import { authenticateApiKey } from "@/server/accounts/api-keys";
import { sessionTokenOf, viewerOfSession } from "@/server/accounts/sessions";
import { TallyError } from "@/server/errors";
import { type ReportCaller, viewerCaller } from "@/server/reports/report-scope";
import { assertSameOrigin } from "./request-origin";
import { errorResponse } from "./respond";

const BEARER = /^Bearer ([^\s]+)$/;
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="tally reports"' };

type ReportHandler = (request: Request, caller: ReportCaller) => Promise<Response>;

async function sessionCaller(request: Request): Promise<ReportCaller | null> {
  const token = sessionTokenOf(request);
  if (token === null) return null;
  assertSameOrigin(request);
  const viewer = await viewerOfSession(token);
  return viewer ? viewerCaller(viewer) : null;
}

export function reportRoute(handler: ReportHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      const authorization = request.headers.get("authorization");
      const match = BEARER.exec(authorization ?? "");
      const caller = authorization !== null ? (match ? await authenticateApiKey(match[1]!) : null) : await sessionCaller(request);
      if (!caller) {
        return errorResponse(new TallyError("unauthorized", "send a live API key as Authorization: Bearer <key>"), CHALLENGE);
      }
      return await handler(request, caller);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
