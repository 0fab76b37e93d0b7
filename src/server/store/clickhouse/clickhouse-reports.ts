// The ClickHouse store's report reads: ClickHouse sums, Postgres names. Accounts, campaigns, ads,
// targeting and budgets live in Postgres, the source of truth, and the figures in ClickHouse's
// report_rollups (Postgres's report tables stay empty in this mode). Each read first sums the
// figures of its range and scope in ClickHouse (report-totals.ch.sql.ts), then runs the same
// Postgres listing statement as the Postgres store with those figures passed in instead of read
// from the report tables, so names, filters, sorting, paging, downloads and their claims are
// one code whichever store counts.
//
// A report reads in any zone ClickHouse keeps (report-zones.sql.ts, readableZones): its rows of
// that zone from the zone's since on, and the UTC rows of the days before (zoned-source.sql.ts).
import { addDays } from "@/server/core/days";
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { adResultsStatement } from "@/server/store/postgres/ad-results.sql";
import { advertiserReportStatement } from "@/server/store/postgres/advertiser-report.sql";
import { campaignDetailOf } from "@/server/store/postgres/campaign-detail.sql";
import { campaignListingStatement } from "@/server/store/postgres/campaign-listing.sql";
import { dailyMetrics, metricsOverRange } from "@/server/store/postgres/daily-metrics.sql";
import { adsDetailedStatement, campaignsDetailedStatement, type GivenDetailedRows, networkBoughtCampaigns } from "@/server/store/postgres/detailed-report.sql";
import { publisherReportStatement } from "@/server/store/postgres/publisher-report.sql";
import { openStatementCursor, type ReportStatement } from "@/server/store/postgres/report-runner";
import type { ReportQuery, ReportScope, ZonedRange } from "@/server/store/report-query";
import type { DetailedReportOrderBy, InvalidTrafficDay, ReportRows } from "@/server/store/report-rows";
import type { ReportReads } from "@/server/store/store";
import { clickhouseHours } from "./hours-report.ch";
import { invalidTrafficDays, keyedFigures, keyedFiguresOfEach, measuredFigures, measuredPage, type RollupRows } from "./report-totals.ch.sql";
import { clickhouseReadableZones } from "./report-zones.sql";

/**
 * A report's rows once its figures are fetched. The fetch runs once for the rows however often
 * they are read: a download that waits for its slots opens them again, and ClickHouse is not
 * asked again for it. A download asks ClickHouse only once its slots are granted, so one refused
 * costs ClickHouse nothing. A failed fetch is tried afresh by the next read.
 */
function afterFetch<Figures, Row>(fetch: () => Promise<Figures>, statement: (figures: Figures) => ReportStatement<Row>): ReportRows<Row> {
  let built: Promise<ReportStatement<Row>> | undefined;
  const ready = () => {
    built ??= fetch()
      .then(statement)
      .catch((error: unknown) => {
        built = undefined;
        throw error;
      });
    return built;
  };
  return {
    page: async (page) => (await ready()).page(page),
    open: (options) => openStatementCursor(ready, options.batch, options.claim),
  };
}

/** The rollup rows of a scope over a range, narrowed by `more` (a request's id filters): what a report may count. */
function scoped(scope: ReportScope, range: ZonedRange, ...more: RollupRows["where"]): RollupRows {
  return {
    range: { startDate: range.startDate, endDate: range.endDate },
    zone: range.zone,
    where: [["advertiser_id", scope.advertiserId], ["publisher_id", scope.publisherIds], ...more],
  };
}

/** The rollup rows a detailed report reads: an advertiser's report, which Postgres reads without the publisher scope too. */
function detailedRollupRows(grain: "campaign" | "ad", scope: ReportScope, query: ReportQuery<string>): RollupRows {
  return {
    range: { startDate: query.startDate, endDate: query.endDate },
    zone: query.zone,
    where: [
      ["advertiser_id", scope.advertiserId],
      ["advertiser_id", query.ids.advertiser_id],
      ["campaign_id", query.ids.campaign_id],
      ["ad_id", grain === "ad" ? query.ids.ad_id : undefined],
    ],
  };
}

/**
 * A detailed report: sub-publisher rows are fetched only for campaigns bought through a network.
 * A page sorted by day (the default) is cut in ClickHouse, which knows every part of that order,
 * and only its rows are summed and named (measuredPage): a month of a large advertiser's ad rows
 * is thousands of rows to sum and hand over, a page fifty. Other sorts, and downloads, need every
 * row's figures.
 */
function detailedReport<Row>(
  grain: "campaign" | "ad",
  scope: ReportScope,
  query: ReportQuery<DetailedReportOrderBy>,
  statement: (given: GivenDetailedRows) => ReportStatement<Row>,
): ReportRows<Row> {
  const wholeRange = afterFetch(async () => {
    const networkCampaigns = await networkBoughtCampaigns(scope, query.ids);
    return { rows: await measuredFigures(grain, detailedRollupRows(grain, scope, query), networkCampaigns) };
  }, statement);
  if (query.orderBy !== "day" || query.download) return wholeRange;
  return {
    ...wholeRange,
    page: async (page) => {
      const networkCampaigns = await networkBoughtCampaigns(scope, query.ids);
      const offset = (page.page - 1) * page.perPage;
      const cut = await measuredPage(grain, detailedRollupRows(grain, scope, query), networkCampaigns, { order: query.order, offset, limit: page.perPage });
      // Past the last row: nothing to name, and the count is ClickHouse's.
      if (cut.rows.length === 0) return { data: [], page: page.page, per_page: page.perPage, total: cut.total };
      return statement({ rows: cut.rows, cut: { before: cut.before, total: cut.total } }).page(page);
    },
  };
}

const campaigns: ReportReads["campaigns"] = (scope, query) =>
  afterFetch(
    () => keyedFigures("campaign_id", scoped(scope, query, ["advertiser_id", query.ids.advertiser_id], ["campaign_id", query.ids.campaign_id])),
    (figures) => campaignListingStatement(scope, query, figures),
  );

const adResults: ReportReads["adResults"] = (scope, query) =>
  afterFetch(
    () =>
      keyedFigures(
        "ad_id",
        scoped(scope, query, ["advertiser_id", query.ids.advertiser_id], ["campaign_id", query.ids.campaign_id], ["ad_id", query.ids.ad_id]),
      ),
    (figures) => adResultsStatement(scope, query, figures),
  );

/** What a campaign's page shows of its figures: its totals, each ad's and each day's, in scope. */
const campaignFigures = (scope: ReportScope, campaignId: string, range: ZonedRange) =>
  keyedFiguresOfEach(["campaign_id", "ad_id", "day"] as const, scoped(scope, range, ["campaign_id", campaignId]));

const zeroDay = (day: string): InvalidTrafficDay =>
  ({ day, counted_events: 0, ...Object.fromEntries(FILTERED_STATUSES.map(({ column }) => [column, 0])) }) as InvalidTrafficDay;

export const clickhouseReports: ReportReads = {
  advertisers: (scope, query) =>
    afterFetch(
      () => keyedFigures("advertiser_id", scoped(scope, query, ["advertiser_id", query.ids.advertiser_id])),
      (figures) => advertiserReportStatement(scope, query, figures),
    ),
  publishers: (scope, query, networkId = null) =>
    afterFetch(
      () => keyedFigures("publisher_id", scoped(scope, query, ["publisher_id", query.ids.publisher_id])),
      (figures) => publisherReportStatement(scope, query, networkId, figures),
    ),
  campaigns,
  adResults,
  campaignsDetailed: (scope, query) => detailedReport("campaign", scope, query, (given) => campaignsDetailedStatement(scope, query, given)),
  adsDetailed: (scope, query) => detailedReport("ad", scope, query, (given) => adsDetailedStatement(scope, query, given)),
  campaign: (scope, campaignId, query, options) => {
    // The campaign's totals, days and ads are groupings of the same rows: summed at once. Every
    // page reads the campaign's totals first, so the figures are always wanted.
    const figures = campaignFigures(scope, campaignId, query);
    return campaignDetailOf({
      campaigns: (scope, query) =>
        afterFetch(
          async () => (await figures).campaign_id,
          (keyed) => campaignListingStatement(scope, query, keyed),
        ),
      adResults: (scope, query) =>
        afterFetch(
          async () => (await figures).ad_id,
          (keyed) => adResultsStatement(scope, query, keyed),
        ),
      days: async (scope, campaignId, range) => dailyMetrics(scope, range, campaignId, (await figures).day),
    })(scope, campaignId, query, options);
  },
  metricsOverRange: async (scope, range) => metricsOverRange(scope, range, await keyedFigures("day", scoped(scope, range))),
  invalidTrafficByDay: async (scope, range) => {
    const found = new Map((await invalidTrafficDays(scoped(scope, range))).map((day) => [day.day, day]));
    const days: InvalidTrafficDay[] = [];
    for (let day = range.startDate; day <= range.endDate; day = addDays(day, 1)) days.push(found.get(day) ?? zeroDay(day));
    return days;
  },
  hours: clickhouseHours,
  readableZones: () => clickhouseReadableZones(),
};
