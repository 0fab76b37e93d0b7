// The report routes (interface §4.3) as Fetch handlers: parse the query, find the caller's scope,
// call the report in src/server/reports/. Next.js route files under src/app/ export these.
import { CAMPAIGN_LISTING_ORDER_BY, campaignListing, type CampaignListingRow } from "@/server/reports/campaign-listing.sql";
import { MAX_PER_PAGE, parseReportQuery, type ReportQuery } from "@/server/reports/report-query";
import { reportScope } from "@/server/reports/report-scope";
import { xlsxHeaders, xlsxStream, type XlsxColumn } from "@/server/reports/xlsx";
import { reportRoute } from "./report-route";

/** Every page of a paged report, for a download: all matching rows, fetched 1,000 at a time. */
async function* allPages<Row, Q extends ReportQuery<string>>(query: Q, fetchPage: (query: Q) => Promise<{ data: Row[] }>): AsyncIterable<Row[]> {
  for (let page = 1; ; page += 1) {
    const { data } = await fetchPage({ ...query, page, perPage: MAX_PER_PAGE });
    if (data.length > 0) yield data;
    if (data.length < MAX_PER_PAGE) return;
  }
}

const CAMPAIGN_LISTING_COLUMNS: XlsxColumn<CampaignListingRow>[] = [
  { header: "campaign_id", key: "campaign_id", type: "text", width: 24 },
  { header: "name", key: "name", type: "text", width: 36 },
  { header: "campaign_type", key: "campaign_type", type: "text" },
  { header: "campaign_status", key: "campaign_status", type: "text" },
  { header: "advertiser_id", key: "advertiser_id", type: "text", width: 24 },
  { header: "start_date", key: "start_date", type: "date" },
  { header: "end_date", key: "end_date", type: "date" },
  { header: "impressions_total", key: "impressions_total", type: "number" },
  { header: "views_total", key: "views_total", type: "number" },
  { header: "clicks_total", key: "clicks_total", type: "number" },
  { header: "ctr", key: "ctr", type: "number" },
  { header: "ad_revenue", key: "ad_revenue", type: "number" },
  { header: "conversions_total", key: "conversions_total", type: "number" },
  { header: "conversion_rate", key: "conversion_rate", type: "number" },
  { header: "sales_revenue", key: "sales_revenue", type: "number" },
  { header: "roas", key: "roas", type: "number" },
  { header: "duplicate_events", key: "duplicate_events", type: "number" },
  { header: "bot_events", key: "bot_events", type: "number" },
];

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const handleCampaignListing = reportRoute(async (request, caller) => {
  const query = parseReportQuery(new URL(request.url).searchParams, { ids: ["advertiser_id", "campaign_id"], orderBy: CAMPAIGN_LISTING_ORDER_BY });
  const scope = await reportScope(caller);
  if (query.download) {
    const rows = allPages(query, (page) => campaignListing(scope, page));
    return new Response(xlsxStream("Campaigns", CAMPAIGN_LISTING_COLUMNS, rows), { headers: xlsxHeaders("campaigns", query.startDate, query.endDate) });
  }
  return Response.json(await campaignListing(scope, query), { headers: { "Cache-Control": "private, no-store" } });
});
