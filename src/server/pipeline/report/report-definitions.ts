// What each report is, whoever reads it: the account kinds it is for, the id parameters and sort
// columns it takes, its file's sheet, name and columns (the JSON rows' fields, in order), and its
// read through the store. The report routes (src/server/http/report-routes.ts) and the report jobs
// (jobs/) read the same definitions, so a job's file holds exactly the route's rows.
import { TallyError } from "@/server/core/errors";
import type { XlsxColumn } from "@/server/formats/xlsx";
import { store } from "@/server/store";
import type { HourRow, HoursReport } from "@/server/store/hours-report";
import { FIELD_COLUMNS, type MetricTotalsOptions } from "@/server/store/metric-columns";
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
import type { ReportWorkbook } from "./report-workbook";

export interface PagedReport<Row extends object, OrderBy extends string> extends ReportWorkbook<Row> {
  /** Account kinds the report is for; others get 404 (default: every kind). */
  kinds?: readonly ReportCaller["accountKind"][];
  ids: readonly ReportIdParameter[];
  orderBy: readonly [OrderBy, ...OrderBy[]];
  /** The start of the file name of the download; its sheet, columns (the JSON rows' fields, in the same order) and totals are the ReportWorkbook's. */
  file: string;
  rows: (scope: ReportScope, query: ReportQuery<OrderBy>, caller: ReportCaller) => ReportRows<Row>;
}

/** A report's account kinds rule, for the route and the job alike: 404 to a caller of another kind. */
export function assertReportKind(kinds: readonly ReportCaller["accountKind"][] | undefined, caller: ReportCaller): void {
  if (kinds && !kinds.includes(caller.accountKind)) throw new TallyError("not_found", `this report is for ${kinds.join(" or ")} accounts`);
}

type ReportField = keyof typeof FIELD_COLUMNS;

/** A field's column: its header in words and its kind (metric-columns.ts), or the header `label` for a report's own name of it. */
const field = <Row>(key: keyof Row & ReportField, label?: string): XlsxColumn<Row> => ({
  header: label ?? FIELD_COLUMNS[key].label,
  key,
  kind: FIELD_COLUMNS[key].kind,
});
const metricColumns = <Row extends Metrics>() => METRIC_FIELDS.map((key) => field<Row>(key));

/** The totals of rows that each stand alone (summed as they come). */
const SUMMED: MetricTotalsOptions = {};
/** The detailed reports' totals: their sub-publisher rows break a total row down, so only the total rows are summed. */
const DETAILED_TOTALS: MetricTotalsOptions = { skip: (row) => row.level === "sub_publisher" };

// GET /campaign/v2: campaigns in the caller's scope with their totals over the range.
export const CAMPAIGN_LISTING: PagedReport<CampaignListingRow, (typeof CAMPAIGN_LISTING_ORDER_BY)[number]> = {
  ids: ["advertiser_id", "campaign_id"],
  orderBy: CAMPAIGN_LISTING_ORDER_BY,
  sheet: "Campaigns",
  file: "campaigns",
  columns: [
    field("campaign_id"),
    field("name", "Campaign"),
    field("campaign_type"),
    field("campaign_status"),
    field("advertiser_id"),
    field("start_date"),
    field("end_date"),
    ...metricColumns<CampaignListingRow>(),
  ],
  totals: SUMMED,
  rows: (scope, query) => store().reports.campaigns(scope, query),
};

// GET /ad/results/v2: ads in the caller's scope with their totals over the range.
export const AD_RESULTS: PagedReport<AdResultsRow, (typeof AD_RESULTS_ORDER_BY)[number]> = {
  ids: ["advertiser_id", "campaign_id", "ad_id"],
  orderBy: AD_RESULTS_ORDER_BY,
  sheet: "Ads",
  file: "ad-results",
  columns: [
    field("ad_id"),
    field("name", "Ad"),
    field("campaign_id"),
    field("advertiser_id"),
    field("ad_type"),
    field("ad_size"),
    field("ad_status"),
    field("ad_media_url"),
    field("cpm"),
    field("cpc"),
    field("product_sku"),
    ...metricColumns<AdResultsRow>(),
  ],
  totals: SUMMED,
  rows: (scope, query) => store().reports.adResults(scope, query),
};

// GET /report/v2/advertisers: the advertisers of the caller's inventory with their totals.
export const ADVERTISER_REPORT: PagedReport<AdvertiserReportRow, (typeof ADVERTISER_REPORT_ORDER_BY)[number]> = {
  ids: ["advertiser_id"],
  orderBy: ADVERTISER_REPORT_ORDER_BY,
  sheet: "Advertisers",
  file: "advertisers",
  columns: [
    field("advertiser"),
    field("advertiser_id"),
    field("seller_id"),
    { ...field("wallet_balance"), currencyKey: "currency" },
    { ...field("daily_budget"), currencyKey: "currency" },
    field("currency"),
    // Each advertiser's money in its own currency.
    ...metricColumns<AdvertiserReportRow>().map((column) => (column.kind === "money" ? { ...column, currencyKey: "currency" as const } : column)),
  ],
  totals: { currencyKey: "currency" },
  rows: (scope, query) => store().reports.advertisers(scope, query),
};

const PUBLISHER_COLUMNS: XlsxColumn<PublisherReportRow>[] = [
  field("publisher"),
  field("publisher_id"),
  field("network_id"),
  field("sites"),
  ...metricColumns<PublisherReportRow>(),
];

// GET /report/v2/publishers: the publishers of the caller's campaigns (or the caller itself).
export const PUBLISHER_REPORT: PagedReport<PublisherReportRow, (typeof PUBLISHER_REPORT_ORDER_BY)[number]> = {
  ids: ["publisher_id"],
  orderBy: PUBLISHER_REPORT_ORDER_BY,
  sheet: "Publishers",
  file: "publishers",
  columns: PUBLISHER_COLUMNS,
  totals: SUMMED,
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
  totals: SUMMED,
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
    field("day"),
    field("level"),
    field("campaign_id"),
    field("name", "Campaign"),
    field("campaign_type"),
    field("advertiser_id"),
    field("network_id"),
    field("publisher_id"),
    field("publisher"),
    ...metricColumns<CampaignsDetailedRow>(),
  ],
  totals: DETAILED_TOTALS,
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
    field("day"),
    field("level"),
    field("ad_id"),
    field("name", "Ad"),
    field("ad_type"),
    field("campaign_id"),
    field("campaign"),
    field("advertiser_id"),
    field("network_id"),
    field("publisher_id"),
    field("publisher"),
    ...metricColumns<AdsDetailedRow>(),
  ],
  totals: DETAILED_TOTALS,
  rows: (scope, query) => store().reports.adsDetailed(scope, query),
};

/** The daily rows of GET /campaign/:id, as its download holds them. */
export const CAMPAIGN_DAILY_WORKBOOK: ReportWorkbook<DayMetrics> = { sheet: "Daily", columns: [field("day"), ...metricColumns<DayMetrics>()], totals: SUMMED };

/**
 * GET /report/hours (dayparting): the range's figures by local weekday and hour, all 168 cells in
 * one answer (not paged: a week has no more), read through the store like every report.
 */
export const HOURS_REPORT = {
  ids: ["advertiser_id", "publisher_id", "campaign_id"] as const satisfies readonly ReportIdParameter[],
  file: "hours",
  read: (scope: ReportScope, query: ReportQuery<string>): Promise<HoursReport> => store().reports.hours(scope, query),
};

/** The hours report's file: weekday (0 = Sunday) and hour, then the metrics, as the JSON rows hold them. */
export const HOURS_WORKBOOK: ReportWorkbook<HourRow> = {
  sheet: "Hours",
  columns: [{ header: "Weekday (0 = Sunday)", key: "weekday", kind: "integer" }, { header: "Hour", key: "hour", kind: "integer" }, ...metricColumns<HourRow>()],
  totals: SUMMED,
};

/** The hours report's file for one answer: its totals row says the zone and from when its hours are counted. */
export const hoursWorkbookOf = (report: Pick<HoursReport, "zone" | "hoursSince">): ReportWorkbook<HourRow> => ({
  ...HOURS_WORKBOOK,
  totalsLabel: `Total (hours in ${report.zone}, counted from ${report.hoursSince.toISOString()})`,
});
