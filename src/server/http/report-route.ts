// The report routes' HTTP shell: a Bearer API key names the calling account (decisions §5);
// without a live key the answer is 401, before any report is computed.
import { authenticateApiKey, type ApiKeyCaller } from "@/server/accounts/api-keys";
import { TallyError } from "@/server/errors";
import { errorResponse } from "./respond";

const BEARER = /^Bearer ([^\s]+)$/;
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="tally reports"' };

type ReportHandler = (request: Request, caller: ApiKeyCaller) => Promise<Response>;

export function reportRoute(handler: ReportHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      const match = BEARER.exec(request.headers.get("authorization") ?? "");
      const caller = match ? await authenticateApiKey(match[1]!) : null;
      if (!caller) {
        return errorResponse(new TallyError("unauthorized", "send a live API key as Authorization: Bearer <key>"), CHALLENGE);
      }
      return await handler(request, caller);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
