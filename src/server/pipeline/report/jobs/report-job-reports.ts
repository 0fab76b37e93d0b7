// The reports a job may run, one per report route, each read exactly as its route reads it
// (report-definitions.ts): the same store read, scope, ids, sort and columns.
import { TallyError } from "@/server/core/errors";
import { store } from "@/server/store";
import type { ReportIdParameter, ReportQuery, ReportScope } from "@/server/store/report-query";
import {
  AD_RESULTS,
  ADS_DETAILED,
  ADVERTISER_REPORT,
  assertReportKind,
  CAMPAIGN_DAILY_WORKBOOK,
  CAMPAIGN_LISTING,
  CAMPAIGNS_DETAILED,
  HOURS_REPORT,
  hoursWorkbookOf,
  NETWORK_PUBLISHER_REPORT,
  type PagedReport,
  PUBLISHER_REPORT,
} from "../report-definitions";
import type { ReportCaller } from "../report-scope";
import type { ReportWorkbook } from "../report-workbook";

export const REPORT_JOB_REPORTS = [
  "campaigns",
  "ad_results",
  "advertisers",
  "publishers",
  "network_publishers",
  "campaigns_detailed",
  "ads_detailed",
  "campaign_daily",
  "hours",
] as const;
export type ReportJobReport = (typeof REPORT_JOB_REPORTS)[number];

/** Every row of a job's report, batch by batch; close() lets go of the read early. */
export interface JobRows {
  batches: AsyncIterable<Record<string, unknown>[]>;
  close(): Promise<void>;
  /** The XLSX file's sheet, columns and totals when this read decides them (the hours report's totals say from when it counts), else the definition's. */
  workbook?: ReportWorkbook<Record<string, unknown>>;
}

export interface ReportJobDefinition {
  kinds?: readonly ReportCaller["accountKind"][];
  ids: readonly ReportIdParameter[];
  /** An id without which the report means nothing (campaign_daily's campaign). */
  requires?: ReportIdParameter;
  orderBy: readonly string[];
  /** Its XLSX file's sheet, columns and totals: the route's download's. */
  workbook: ReportWorkbook<Record<string, unknown>>;
  open(scope: ReportScope, query: ReportQuery<string>, caller: ReportCaller, batch: number): Promise<JobRows>;
}

function paged<Row extends object, OrderBy extends string>(report: PagedReport<Row, OrderBy>): ReportJobDefinition {
  return {
    kinds: report.kinds,
    ids: report.ids,
    orderBy: report.orderBy,
    workbook: report as unknown as ReportWorkbook<Record<string, unknown>>,
    async open(scope, query, caller, batch) {
      const cursor = await report.rows(scope, query as ReportQuery<OrderBy>, caller).open({ batch });
      return { batches: cursor.batches as AsyncIterable<Record<string, unknown>[]>, close: () => cursor.close() };
    },
  };
}

// GET /campaign/:id reads the campaign's days in one query, so its job does too.
const CAMPAIGN_DAILY: ReportJobDefinition = {
  ids: ["campaign_id"],
  requires: "campaign_id",
  orderBy: ["day"],
  workbook: CAMPAIGN_DAILY_WORKBOOK as unknown as ReportWorkbook<Record<string, unknown>>,
  async open(scope, query) {
    const campaignId = query.ids.campaign_id ?? "";
    const detail = await store().reports.campaign(scope, campaignId, query, { withAds: false });
    if (!detail) throw new TallyError("not_found", `no campaign ${campaignId}`);
    async function* batches() {
      yield detail!.daily as unknown as Record<string, unknown>[];
    }
    return { batches: batches(), close: async () => {} };
  },
};

// GET /report/hours answers its 168 cells at once, so its job reads them so too.
const HOURS: ReportJobDefinition = {
  ids: HOURS_REPORT.ids,
  orderBy: ["weekday"],
  workbook: hoursWorkbookOf({ zone: "UTC", hoursSince: new Date(0) }) as unknown as ReportWorkbook<Record<string, unknown>>,
  async open(scope, query) {
    const report = await HOURS_REPORT.read(scope, query);
    async function* batches() {
      yield report.rows as unknown as Record<string, unknown>[];
    }
    return { batches: batches(), close: async () => {}, workbook: hoursWorkbookOf(report) as unknown as ReportWorkbook<Record<string, unknown>> };
  },
};

const DEFINITIONS: Record<ReportJobReport, ReportJobDefinition> = {
  campaigns: paged(CAMPAIGN_LISTING),
  ad_results: paged(AD_RESULTS),
  advertisers: paged(ADVERTISER_REPORT),
  publishers: paged(PUBLISHER_REPORT),
  network_publishers: paged(NETWORK_PUBLISHER_REPORT),
  campaigns_detailed: paged(CAMPAIGNS_DETAILED),
  ads_detailed: paged(ADS_DETAILED),
  campaign_daily: CAMPAIGN_DAILY,
  hours: HOURS,
};

export const reportJobDefinition = (report: ReportJobReport): ReportJobDefinition => DEFINITIONS[report];

/** The account kinds rule of the report's route: 404 for a report that is not for the caller's kind. */
export function assertReportFor(report: ReportJobReport, caller: ReportCaller): void {
  assertReportKind(DEFINITIONS[report].kinds, caller);
}
