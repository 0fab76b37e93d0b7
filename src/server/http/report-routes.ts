// The report routes (docs/interface.md §4.3) as Fetch handlers: parse the query, find the caller's scope,
// call the report through the store (src/server/store/; each report defined once in
// src/server/pipeline/report/report-definitions.ts), answer JSON or the XLSX download (whose
// limits, report-download.ts, are met before the answer starts). Dates are local dates in the
// caller's account's zone or `time_zone`, and every answer names its zone in a header
// (report-time-zone-headers.ts). Next.js route files under src/app/ export these.
import type { z } from "zod";
import { TallyError } from "@/server/core/errors";
import { xlsxHeaders } from "@/server/formats/xlsx";
import { reportCurrency } from "@/server/pipeline/report/report-currency";
import {
  AD_RESULTS,
  ADS_DETAILED,
  ADVERTISER_REPORT,
  assertReportKind,
  CAMPAIGN_DAILY_WORKBOOK,
  CAMPAIGN_LISTING,
  CAMPAIGNS_DETAILED,
  NETWORK_PUBLISHER_REPORT,
  type PagedReport,
  PUBLISHER_REPORT,
} from "@/server/pipeline/report/report-definitions";
import { openReportDownload } from "@/server/pipeline/report/report-download";
import { reportScope } from "@/server/pipeline/report/report-scope";
import { callerReportZones } from "@/server/pipeline/report/report-time-zone";
import { reportFileProperties, reportXlsxStream } from "@/server/pipeline/report/report-workbook";
import { store } from "@/server/store";
import { parseReportQuery, type ReportQuerySpec, utcDaysBeforeOf } from "@/server/store/report-query";
import {
  ZAdResultsRow,
  ZAdsDetailedRow,
  ZAdvertiserReportRow,
  ZCampaignDetail,
  ZCampaignListingRow,
  ZCampaignsDetailedRow,
  ZPublisherReportRow,
} from "@/server/store/report-rows";
import { campaignDetailOperation } from "./openapi/campaign-detail-operation";
import { type ApiContribution, type ApiOperation, type JsonSchema, jsonSchemaOf } from "./openapi/registry";
import { type PagedReportDoc, pagedReportOperation, REPORTS_TAG } from "./openapi/report-operation";
import { reportRoute } from "./report-caller";
import { timeZoneHeaders } from "./report-time-zone-headers";

/** How the API document describes a report route: the schema of its JSON rows, its name and words. */
interface ReportRouteDoc<Row extends object> {
  row: z.ZodType<Row>;
  api: PagedReportDoc;
}

const operations: ApiOperation[] = [];
const schemas: Record<string, JsonSchema> = {};

/** The report routes' part of the API document (src/server/http/openapi/). */
export const REPORT_API: ApiContribution = {
  tags: [{ name: REPORTS_TAG, description: "Figures over a date range, per campaign, ad, advertiser or publisher: JSON pages, or the whole report as XLSX." }],
  schemas,
  operations,
};

function pagedReportRoute<Row extends object, OrderBy extends string>(report: PagedReport<Row, OrderBy>, doc: ReportRouteDoc<Row>) {
  const spec: ReportQuerySpec<OrderBy> = { ids: report.ids, orderBy: report.orderBy };
  const described = pagedReportOperation(doc.api, { ...spec, kinds: report.kinds }, doc.row);
  operations.push(described.operation);
  Object.assign(schemas, described.schemas);
  return reportRoute(async (request, caller, requester) => {
    assertReportKind(report.kinds, caller);
    const zones = await callerReportZones(caller);
    const query = parseReportQuery(new URL(request.url).searchParams, spec, zones);
    const scope = await reportScope(caller);
    const zoneHeaders = timeZoneHeaders(query, zones);
    if (query.download) {
      const currency = await reportCurrency(caller, query.ids);
      const rows = await openReportDownload(report.rows(scope, query, caller), requester);
      const properties = reportFileProperties(report.sheet, query, utcDaysBeforeOf(query, zones));
      return new Response(reportXlsxStream(report, currency, rows, properties), {
        headers: { ...xlsxHeaders(report.file, query.startDate, query.endDate), ...zoneHeaders },
      });
    }
    return Response.json(await report.rows(scope, query, caller).page(query), { headers: { "Cache-Control": "private, no-store", ...zoneHeaders } });
  });
}

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const handleCampaignListing = pagedReportRoute(CAMPAIGN_LISTING, {
  row: ZCampaignListingRow,
  api: {
    path: "/campaign/v2",
    operationId: "listCampaigns",
    summary: "Campaigns with their totals",
    description: "Campaigns in the caller's scope, each with its figures summed over the range.",
    rowName: "CampaignListingRow",
  },
});

// GET /ad/results/v2: ads in the caller's scope with their totals over the range.
export const handleAdResults = pagedReportRoute(AD_RESULTS, {
  row: ZAdResultsRow,
  api: {
    path: "/ad/results/v2",
    operationId: "listAdResults",
    summary: "Ads with their totals",
    description: "Ads in the caller's scope, each with its bid, products and figures summed over the range.",
    rowName: "AdResultsRow",
  },
});

// GET /report/v2/advertisers: the advertisers of the caller's inventory with their totals.
export const handleAdvertiserReport = pagedReportRoute(ADVERTISER_REPORT, {
  row: ZAdvertiserReportRow,
  api: {
    path: "/report/v2/advertisers",
    operationId: "listAdvertisers",
    summary: "Advertisers with their totals",
    description: "The advertisers of the caller's inventory (or the caller itself), with wallet, budget and figures summed over the range.",
    rowName: "AdvertiserReportRow",
  },
});

// GET /report/v2/publishers: the publishers of the caller's campaigns (or the caller itself).
export const handlePublisherReport = pagedReportRoute(PUBLISHER_REPORT, {
  row: ZPublisherReportRow,
  api: {
    path: "/report/v2/publishers",
    operationId: "listPublishers",
    summary: "Publishers with their totals",
    description: "The publishers that carried the caller's campaigns (or the caller itself), with figures summed over the range.",
    rowName: "PublisherReportRow",
  },
});

// GET /report/network/publishers: a network's sub-publishers with their totals.
export const handleNetworkPublisherReport = pagedReportRoute(NETWORK_PUBLISHER_REPORT, {
  row: ZPublisherReportRow,
  api: {
    path: "/report/network/publishers",
    operationId: "listNetworkPublishers",
    summary: "A network's sub-publishers with their totals",
    description: "The sub-publishers of the calling network, with figures summed over the range.",
    rowName: "PublisherReportRow",
  },
});

// GET /report/advertisers/campaigns-detailed: per campaign and day, with sub-publisher rows.
export const handleCampaignsDetailed = pagedReportRoute(CAMPAIGNS_DETAILED, {
  row: ZCampaignsDetailedRow,
  api: {
    path: "/report/advertisers/campaigns-detailed",
    operationId: "listCampaignDays",
    summary: "Campaigns per day, with sub-publisher rows",
    description: "One row per campaign and day; a campaign bought through a network adds one sub_publisher row per publisher that carried it.",
    rowName: "CampaignsDetailedRow",
  },
});

// GET /report/advertisers/ads-detailed: per ad and day, with the sub-publisher breakdown.
export const handleAdsDetailed = pagedReportRoute(ADS_DETAILED, {
  row: ZAdsDetailedRow,
  api: {
    path: "/report/advertisers/ads-detailed",
    operationId: "listAdDays",
    summary: "Ads per day, with sub-publisher rows",
    description: "One row per ad and day; an ad of a campaign bought through a network adds one sub_publisher row per publisher that carried it.",
    rowName: "AdsDetailedRow",
  },
});

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

const CAMPAIGN_DETAIL_QUERY: ReportQuerySpec<"day"> = { ids: [], orderBy: ["day"], paged: false };
operations.push(campaignDetailOperation(CAMPAIGN_DETAIL_QUERY));
schemas.CampaignDetail = jsonSchemaOf(ZCampaignDetail);

export const handleCampaignDetail = reportRoute(async (request, caller) => {
  const url = new URL(request.url);
  const campaignId = campaignIdOf(url);
  const zones = await callerReportZones(caller);
  const query = parseReportQuery(url.searchParams, CAMPAIGN_DETAIL_QUERY, zones);
  const zoneHeaders = timeZoneHeaders(query, zones);
  const detail = campaignId ? await store().reports.campaign(await reportScope(caller), campaignId, query, { withAds: !query.download }) : null;
  if (!detail) throw new TallyError("not_found", `no campaign ${campaignId}`);
  if (query.download) {
    async function* daily() {
      yield detail!.daily;
    }
    const currency = await reportCurrency(caller, { advertiser_id: detail.advertiser_id });
    const properties = reportFileProperties(`Campaign ${campaignId}`, query, utcDaysBeforeOf(query, zones));
    return new Response(reportXlsxStream(CAMPAIGN_DAILY_WORKBOOK, currency, daily(), properties), {
      headers: { ...xlsxHeaders(`campaign-${campaignId}`, query.startDate, query.endDate), ...zoneHeaders },
    });
  }
  return Response.json({ data: detail }, { headers: { "Cache-Control": "private, no-store", ...zoneHeaders } });
});
