// What each report is, whoever reads it: the account kinds it is for, the id parameters and sort
// columns it takes, its file's sheet, name and columns (the JSON rows' fields, in order), and its
// read through the store. The report routes (src/server/http/report-routes.ts) and the report jobs
// (jobs/) read the same definitions, so a job's file holds exactly the route's rows.
import { TallyError } from "@/server/core/errors";
import type { XlsxColumn } from "@/server/formats/xlsx";
import { store } from "@/server/store";
import { METRIC_FIELDS, type Metrics } from "@/server/store/metrics";
import type { ReportIdParameter, ReportQuery, ReportScope } from "@/server/store/report-query";
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
} from "@/server/store/report-rows";
import type { ReportCaller } from "./report-scope";

export interface PagedReport<Row extends object, OrderBy extends string> {
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
}

/** A report's account kinds rule, for the route and the job alike: 404 to a caller of another kind. */
export function assertReportKind(kinds: readonly ReportCaller["accountKind"][] | undefined, caller: ReportCaller): void {
  if (kinds && !kinds.includes(caller.accountKind)) throw new TallyError("not_found", `this report is for ${kinds.join(" or ")} accounts`);
}

const text = <Row>(key: keyof Row & string, width = 24): XlsxColumn<Row> => ({ header: key, key, type: "text", width });
const number = <Row>(key: keyof Row & string): XlsxColumn<Row> => ({ header: key, key, type: "number" });
const date = <Row>(key: keyof Row & string): XlsxColumn<Row> => ({ header: key, key, type: "date" });
const metricColumns = <Row extends Metrics>() => METRIC_FIELDS.map((key) => number<Row>(key));

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const CAMPAIGN_LISTING: PagedReport<CampaignListingRow, (typeof CAMPAIGN_LISTING_ORDER_BY)[number]> = {
  ids: ["advertiser_id", "campaign_id"],
  orderBy: CAMPAIGN_LISTING_ORDER_BY,
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
};

// GET /ad/results/v2: ads in the caller's scope with their totals over the range.
export const AD_RESULTS: PagedReport<AdResultsRow, (typeof AD_RESULTS_ORDER_BY)[number]> = {
  ids: ["advertiser_id", "campaign_id", "ad_id"],
  orderBy: AD_RESULTS_ORDER_BY,
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
};

// GET /report/v2/advertisers: the advertisers of the caller's inventory with their totals.
export const ADVERTISER_REPORT: PagedReport<AdvertiserReportRow, (typeof ADVERTISER_REPORT_ORDER_BY)[number]> = {
  ids: ["advertiser_id"],
  orderBy: ADVERTISER_REPORT_ORDER_BY,
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
};

const PUBLISHER_COLUMNS: XlsxColumn<PublisherReportRow>[] = [
  text("publisher", 32),
  text("publisher_id"),
  text("network_id"),
  text("sites", 36),
  ...metricColumns<PublisherReportRow>(),
];

// GET /report/v2/publishers: the publishers of the caller's campaigns (or the caller itself).
export const PUBLISHER_REPORT: PagedReport<PublisherReportRow, (typeof PUBLISHER_REPORT_ORDER_BY)[number]> = {
  ids: ["publisher_id"],
  orderBy: PUBLISHER_REPORT_ORDER_BY,
  sheet: "Publishers",
  file: "publishers",
  columns: PUBLISHER_COLUMNS,
  rows: (scope, query) => store().reports.publishers(scope, query),
};

// GET /report/network/publishers: a network's sub-publishers with their totals.
export const NETWORK_PUBLISHER_REPORT: PagedReport<PublisherReportRow, (typeof PUBLISHER_REPORT_ORDER_BY)[number]> = {
  kinds: ["network"],
  ids: ["publisher_id"],
  orderBy: PUBLISHER_REPORT_ORDER_BY,
  sheet: "Network publishers",
  file: "network-publishers",
  columns: PUBLISHER_COLUMNS,
  rows: (scope, query, caller) => store().reports.publishers(scope, query, caller.accountId),
};

// GET /report/advertisers/campaigns-detailed: per campaign and day, with sub-publisher rows for
// campaigns bought through a network.
export const CAMPAIGNS_DETAILED: PagedReport<CampaignsDetailedRow, DetailedReportOrderBy> = {
  kinds: ["advertiser"],
  ids: ["advertiser_id", "campaign_id"],
  orderBy: DETAILED_REPORT_ORDER_BY,
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
};

// GET /report/advertisers/ads-detailed: per ad and day, with the sub-publisher breakdown for
// campaigns bought through a network.
export const ADS_DETAILED: PagedReport<AdsDetailedRow, DetailedReportOrderBy> = {
  kinds: ["advertiser"],
  ids: ["advertiser_id", "campaign_id", "ad_id"],
  orderBy: DETAILED_REPORT_ORDER_BY,
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
};

/** The daily rows of GET /campaign/:id, as its download holds them. */
export const CAMPAIGN_DAILY_COLUMNS: XlsxColumn<DayMetrics>[] = [date("day"), ...metricColumns<DayMetrics>()];
