// The report routes (interface §4.3) as Fetch handlers: parse the query, find the caller's scope,
// call the report in src/server/reports/. Next.js route files under src/app/ export these.
import { TallyError } from "@/server/errors";
import { CAMPAIGN_LISTING_ORDER_BY, campaignListing } from "@/server/reports/campaign-listing.sql";
import { parseReportQuery } from "@/server/reports/report-query";
import { reportScope } from "@/server/reports/report-scope";
import { reportRoute } from "./report-route";

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const handleCampaignListing = reportRoute(async (request, caller) => {
  const query = parseReportQuery(new URL(request.url).searchParams, { ids: ["advertiser_id", "campaign_id"], orderBy: CAMPAIGN_LISTING_ORDER_BY });
  if (query.download) throw new TallyError("bad_request", "download=true: XLSX downloads are not available yet");
  const report = await campaignListing(await reportScope(caller), query);
  return Response.json(report, { headers: { "Cache-Control": "private, no-store" } });
});
