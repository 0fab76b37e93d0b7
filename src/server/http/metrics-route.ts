// GET /api/metrics (and the collector's /metrics): Prometheus text behind a bearer token, so the
// counts and lags of a public deployment are not public.
import { env } from "@/env";
import { TallyError } from "@/server/core/errors";
import { metricsText } from "@/server/upkeep/prometheus";
import { bearerMatches } from "./bearer";
import { errorResponse } from "./respond";

export async function handleMetrics(request: Request): Promise<Response> {
  try {
    if (!bearerMatches(request.headers.get("authorization"), env().TALLY_METRICS_TOKEN)) {
      throw new TallyError("unauthorized", "metrics need Authorization: Bearer <TALLY_METRICS_TOKEN>");
    }
    const { contentType, body } = await metricsText();
    return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
