// One file over 300 lines on purpose: the report routes side by side, each with its query, columns and API description, read as one table.
// The report routes (docs/interface.md §4.3) as Fetch handlers: parse the query, find the caller's scope,
// call the report through the store (src/server/store/), answer JSON or the XLSX download (whose
// limits, report-download.ts, are met before the answer starts). Next.js route files under
// src/app/ export these.

import type { z } from "zod";
import { TallyError } from "@/server/core/errors";
import { type XlsxColumn, xlsxHeaders, xlsxStream } from "@/server/formats/xlsx";
import { openReportDownload } from "@/server/pipeline/report/report-download";
import { type ReportCaller, reportScope } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import { METRIC_FIELDS, type Metrics } from "@/server/store/metrics";
import { parseReportQuery, type ReportIdParameter, type ReportQuery, type ReportQuerySpec, type ReportScope } from "@/server/store/report-query";
import {
  AD_RESULTS_ORDER_BY,
  ADVERTISER_REPORT_ORDER_BY,
  type AdResultsRow,
  type AdsDetailedRow,
  type AdvertiserReportRow,
  CAMPAIGN_LISTING_ORDER_BY,
  type CampaignListingRow,
  type CampaignsDetailedRow,
  type DayMetrics,
  DETAILED_REPORT_ORDER_BY,
  type DetailedReportOrderBy,
  PUBLISHER_REPORT_ORDER_BY,
  type PublisherReportRow,
  type ReportRows,
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

interface PagedReport<Row extends object, OrderBy extends string> {
  /** Account kinds the report is for; others get 404 (default: every kind). */
  kinds?: readonly ReportCaller["accountKind"][];
  ids: readonly ReportIdParameter[];
  orderBy: readonly [OrderBy, ...OrderBy[]];
  /** Sheet name and the start of the file name of the download. */
  sheet: string;
  file: string;
  /** The download's columns: the JSON rows' fields, in the same order. */
  columns: XlsxColumn<Row>[];
  rows: (scope: ReportScope, query: ReportQuery<OrderBy>, caller: ReportCaller) => ReportRows<Row>;
  /** The schema of the JSON rows, and how the API document names and explains the route. */
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

function pagedReportRoute<Row extends object, OrderBy extends string>(report: PagedReport<Row, OrderBy>) {
  const spec: ReportQuerySpec<OrderBy> = { ids: report.ids, orderBy: report.orderBy };
  const described = pagedReportOperation(report.api, { ...spec, kinds: report.kinds }, report.row);
  operations.push(described.operation);
  Object.assign(schemas, described.schemas);
  return reportRoute(async (request, caller, requester) => {
    if (report.kinds && !report.kinds.includes(caller.accountKind)) {
      throw new TallyError("not_found", `this report is for ${report.kinds.join(" or ")} accounts`);
    }
    const query = parseReportQuery(new URL(request.url).searchParams, spec);
    const scope = await reportScope(caller);
    if (query.download) {
      const rows = await openReportDownload(report.rows(scope, query, caller), requester);
      return new Response(xlsxStream(report.sheet, report.columns, rows), { headers: xlsxHeaders(report.file, query.startDate, query.endDate) });
    }
    return Response.json(await report.rows(scope, query, caller).page(query), { headers: { "Cache-Control": "private, no-store" } });
  });
}

const text = <Row>(key: keyof Row & string, width = 24): XlsxColumn<Row> => ({ header: key, key, type: "text", width });
const number = <Row>(key: keyof Row & string): XlsxColumn<Row> => ({ header: key, key, type: "number" });
const date = <Row>(key: keyof Row & string): XlsxColumn<Row> => ({ header: key, key, type: "date" });
const metricColumns = <Row extends Metrics>() => METRIC_FIELDS.map((key) => number<Row>(key));

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const handleCampaignListing = pagedReportRoute<CampaignListingRow, (typeof CAMPAIGN_LISTING_ORDER_BY)[number]>({
  ids: ["advertiser_id", "campaign_id"],
  orderBy: CAMPAIGN_LISTING_ORDER_BY,
  row: ZCampaignListingRow,
  api: {
    path: "/campaign/v2",
    operationId: "listCampaigns",
    summary: "Campaigns with their totals",
    description: "Campaigns in the caller's scope, each with its figures summed over the range.",
    rowName: "CampaignListingRow",
  },
  sheet: "Campaigns",
  file: "campaigns",
  columns: [
    text("campaign_id"),
    text("name", 36),
    text("campaign_type", 14),
    text("campaign_status", 16),
    text("advertiser_id"),
    date("start_date"),
    date("end_date"),
    ...metricColumns<CampaignListingRow>(),
  ],
  rows: (scope, query) => store().reports.campaigns(scope, query),
});

// GET /ad/results/v2: ads in the caller's scope with their totals over the range.
export const handleAdResults = pagedReportRoute<AdResultsRow, (typeof AD_RESULTS_ORDER_BY)[number]>({
  ids: ["advertiser_id", "campaign_id", "ad_id"],
  orderBy: AD_RESULTS_ORDER_BY,
  row: ZAdResultsRow,
  api: {
    path: "/ad/results/v2",
    operationId: "listAdResults",
    summary: "Ads with their totals",
    description: "Ads in the caller's scope, each with its bid, products and figures summed over the range.",
    rowName: "AdResultsRow",
  },
  sheet: "Ads",
  file: "ad-results",
  columns: [
    text("ad_id"),
    text("name", 36),
    text("campaign_id"),
    text("advertiser_id"),
    text("ad_type", 12),
    text("ad_size", 12),
    text("ad_status", 12),
    text("ad_media_url", 36),
    number("cpm"),
    number("cpc"),
    text("product_sku", 36),
    ...metricColumns<AdResultsRow>(),
  ],
  rows: (scope, query) => store().reports.adResults(scope, query),
});

// GET /report/v2/advertisers: the advertisers of the caller's inventory with their totals.
export const handleAdvertiserReport = pagedReportRoute<AdvertiserReportRow, (typeof ADVERTISER_REPORT_ORDER_BY)[number]>({
  ids: ["advertiser_id"],
  orderBy: ADVERTISER_REPORT_ORDER_BY,
  row: ZAdvertiserReportRow,
  api: {
    path: "/report/v2/advertisers",
    operationId: "listAdvertisers",
    summary: "Advertisers with their totals",
    description: "The advertisers of the caller's inventory (or the caller itself), with wallet, budget and figures summed over the range.",
    rowName: "AdvertiserReportRow",
  },
  sheet: "Advertisers",
  file: "advertisers",
  columns: [
    text("advertiser", 32),
    text("advertiser_id"),
    text("seller_id"),
    number("wallet_balance"),
    number("daily_budget"),
    text("currency", 10),
    ...metricColumns<AdvertiserReportRow>(),
  ],
  rows: (scope, query) => store().reports.advertisers(scope, query),
});

const PUBLISHER_COLUMNS: XlsxColumn<PublisherReportRow>[] = [
  text("publisher", 32),
  text("publisher_id"),
  text("network_id"),
  text("sites", 36),
  ...metricColumns<PublisherReportRow>(),
];

// GET /report/v2/publishers: the publishers of the caller's campaigns (or the caller itself).
export const handlePublisherReport = pagedReportRoute<PublisherReportRow, (typeof PUBLISHER_REPORT_ORDER_BY)[number]>({
  ids: ["publisher_id"],
  orderBy: PUBLISHER_REPORT_ORDER_BY,
  row: ZPublisherReportRow,
  api: {
    path: "/report/v2/publishers",
    operationId: "listPublishers",
    summary: "Publishers with their totals",
    description: "The publishers that carried the caller's campaigns (or the caller itself), with figures summed over the range.",
    rowName: "PublisherReportRow",
  },
  sheet: "Publishers",
  file: "publishers",
  columns: PUBLISHER_COLUMNS,
  rows: (scope, query) => store().reports.publishers(scope, query),
});

// GET /report/network/publishers: a network's sub-publishers with their totals.
export const handleNetworkPublisherReport = pagedReportRoute<PublisherReportRow, (typeof PUBLISHER_REPORT_ORDER_BY)[number]>({
  kinds: ["network"],
  ids: ["publisher_id"],
  orderBy: PUBLISHER_REPORT_ORDER_BY,
  row: ZPublisherReportRow,
  api: {
    path: "/report/network/publishers",
    operationId: "listNetworkPublishers",
    summary: "A network's sub-publishers with their totals",
    description: "The sub-publishers of the calling network, with figures summed over the range.",
    rowName: "PublisherReportRow",
  },
  sheet: "Network publishers",
  file: "network-publishers",
  columns: PUBLISHER_COLUMNS,
  rows: (scope, query, caller) => store().reports.publishers(scope, query, caller.accountId),
});

// GET /report/advertisers/campaigns-detailed: per campaign and day, with sub-publisher rows for
// campaigns bought through a network.
export const handleCampaignsDetailed = pagedReportRoute<CampaignsDetailedRow, DetailedReportOrderBy>({
  kinds: ["advertiser"],
  ids: ["advertiser_id", "campaign_id"],
  orderBy: DETAILED_REPORT_ORDER_BY,
  row: ZCampaignsDetailedRow,
  api: {
    path: "/report/advertisers/campaigns-detailed",
    operationId: "listCampaignDays",
    summary: "Campaigns per day, with sub-publisher rows",
    description: "One row per campaign and day; a campaign bought through a network adds one sub_publisher row per publisher that carried it.",
    rowName: "CampaignsDetailedRow",
  },
  sheet: "Campaigns by day",
  file: "campaigns-detailed",
  columns: [
    date("day"),
    text("level", 14),
    text("campaign_id"),
    text("name", 36),
    text("campaign_type", 14),
    text("advertiser_id"),
    text("network_id"),
    text("publisher_id"),
    text("publisher", 32),
    ...metricColumns<CampaignsDetailedRow>(),
  ],
  rows: (scope, query) => store().reports.campaignsDetailed(scope, query),
});

// GET /report/advertisers/ads-detailed: per ad and day, with the sub-publisher breakdown for
// campaigns bought through a network.
export const handleAdsDetailed = pagedReportRoute<AdsDetailedRow, DetailedReportOrderBy>({
  kinds: ["advertiser"],
  ids: ["advertiser_id", "campaign_id", "ad_id"],
  orderBy: DETAILED_REPORT_ORDER_BY,
  row: ZAdsDetailedRow,
  api: {
    path: "/report/advertisers/ads-detailed",
    operationId: "listAdDays",
    summary: "Ads per day, with sub-publisher rows",
    description: "One row per ad and day; an ad of a campaign bought through a network adds one sub_publisher row per publisher that carried it.",
    rowName: "AdsDetailedRow",
  },
  sheet: "Ads by day",
  file: "ads-detailed",
  columns: [
    date("day"),
    text("level", 14),
    text("ad_id"),
    text("name", 36),
    text("ad_type", 12),
    text("campaign_id"),
    text("campaign", 36),
    text("advertiser_id"),
    text("network_id"),
    text("publisher_id"),
    text("publisher", 32),
    ...metricColumns<AdsDetailedRow>(),
  ],
  rows: (scope, query) => store().reports.adsDetailed(scope, query),
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
  const query = parseReportQuery(url.searchParams, CAMPAIGN_DETAIL_QUERY);
  const detail = campaignId ? await store().reports.campaign(await reportScope(caller), campaignId, query, { withAds: !query.download }) : null;
  if (!detail) throw new TallyError("not_found", `no campaign ${campaignId}`);
  if (query.download) {
    const columns: XlsxColumn<DayMetrics>[] = [date("day"), ...metricColumns<DayMetrics>()];
    async function* daily() {
      yield detail!.daily;
    }
    return new Response(xlsxStream("Daily", columns, daily()), { headers: xlsxHeaders(`campaign-${campaignId}`, query.startDate, query.endDate) });
  }
  return Response.json({ data: detail }, { headers: { "Cache-Control": "private, no-store" } });
});
