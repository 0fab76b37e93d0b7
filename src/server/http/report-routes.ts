// The report routes (docs/interface.md §4.3) as Fetch handlers: parse the query, find the caller's scope,
// call the report through the store (src/server/store/; each report defined once in
// src/server/pipeline/report/report-definitions.ts), answer JSON or the XLSX download (whose
// limits, report-download.ts, are met before the answer starts). Next.js route files under
// src/app/ export these.
import { TallyError } from "@/server/core/errors";
import { xlsxHeaders, xlsxStream } from "@/server/formats/xlsx";
import {
  AD_RESULTS,
  ADS_DETAILED,
  ADVERTISER_REPORT,
  CAMPAIGN_DAILY_COLUMNS,
  CAMPAIGN_LISTING,
  CAMPAIGNS_DETAILED,
  NETWORK_PUBLISHER_REPORT,
  type PagedReport,
  PUBLISHER_REPORT,
} from "@/server/pipeline/report/report-definitions";
import { openReportDownload } from "@/server/pipeline/report/report-download";
import { reportScope } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { parseReportQuery } from "@/server/store/report-query";
import { reportRoute } from "./report-caller";

function pagedReportRoute<Row extends object, OrderBy extends string>(report: PagedReport<Row, OrderBy>) {
  return reportRoute(async (request, caller, requester) => {
    if (report.kinds && !report.kinds.includes(caller.accountKind)) {
      throw new TallyError("not_found", `this report is for ${report.kinds.join(" or ")} accounts`);
    }
    const query = parseReportQuery(new URL(request.url).searchParams, { ids: report.ids, orderBy: report.orderBy });
    const scope = await reportScope(caller);
    if (query.download) {
      const rows = await openReportDownload(report.rows(scope, query, caller), requester);
      return new Response(xlsxStream(report.sheet, report.columns, rows), { headers: xlsxHeaders(report.file, query.startDate, query.endDate) });
    }
    return Response.json(await report.rows(scope, query, caller).page(query), { headers: { "Cache-Control": "private, no-store" } });
  });
}

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const handleCampaignListing = pagedReportRoute(CAMPAIGN_LISTING);

// GET /ad/results/v2: ads in the caller's scope with their totals over the range.
export const handleAdResults = pagedReportRoute(AD_RESULTS);

// GET /report/v2/advertisers: the advertisers of the caller's inventory with their totals.
export const handleAdvertiserReport = pagedReportRoute(ADVERTISER_REPORT);

// GET /report/v2/publishers: the publishers of the caller's campaigns (or the caller itself).
export const handlePublisherReport = pagedReportRoute(PUBLISHER_REPORT);

// GET /report/network/publishers: a network's sub-publishers with their totals.
export const handleNetworkPublisherReport = pagedReportRoute(NETWORK_PUBLISHER_REPORT);

// GET /report/advertisers/campaigns-detailed: per campaign and day, with sub-publisher rows.
export const handleCampaignsDetailed = pagedReportRoute(CAMPAIGNS_DETAILED);

// GET /report/advertisers/ads-detailed: per ad and day, with the sub-publisher breakdown.
export const handleAdsDetailed = pagedReportRoute(ADS_DETAILED);

// GET /campaign/:id: one campaign with its totals, daily rows and ads; the download holds the
// daily rows.
/** The :id segment of /campaign/:id; "" when missing or not valid percent-encoding (a 404). */
function campaignIdOf(url: URL): string {
  try {
    return decodeURIComponent(url.pathname.split("/")[2] ?? "");
  } catch {
    return "";
  }
}

export const handleCampaignDetail = reportRoute(async (request, caller) => {
  const url = new URL(request.url);
  const campaignId = campaignIdOf(url);
  const query = parseReportQuery(url.searchParams, { ids: [], orderBy: ["day"], paged: false });
  const detail = campaignId ? await store().reports.campaign(await reportScope(caller), campaignId, query, { withAds: !query.download }) : null;
  if (!detail) throw new TallyError("not_found", `no campaign ${campaignId}`);
  if (query.download) {
    async function* daily() {
      yield detail!.daily;
    }
    return new Response(xlsxStream("Daily", CAMPAIGN_DAILY_COLUMNS, daily()), {
      headers: xlsxHeaders(`campaign-${campaignId}`, query.startDate, query.endDate),
    });
  }
  return Response.json({ data: detail }, { headers: { "Cache-Control": "private, no-store" } });
});
