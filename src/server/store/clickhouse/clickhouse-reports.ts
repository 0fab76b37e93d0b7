// The ClickHouse store's report reads: ClickHouse sums, Postgres names. Accounts, campaigns, ads,
// targeting and budgets live in Postgres, the source of truth, and the figures in ClickHouse's
// report_rollups (Postgres's report tables stay empty in this mode). Each read first sums the
// figures of its range and scope in ClickHouse (report-totals.ch.sql.ts), then runs the same
// Postgres listing statement as the Postgres store with those figures passed in instead of read
// from the report tables, so names, filters, sorting, paging, downloads and their claims are
// one code whichever store counts.
import { addDays } from "@/server/core/days";
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { adResultsStatement } from "@/server/store/postgres/ad-results.sql";
import { advertiserReportStatement } from "@/server/store/postgres/advertiser-report.sql";
import { campaignDetailOf } from "@/server/store/postgres/campaign-detail.sql";
import { campaignListingStatement } from "@/server/store/postgres/campaign-listing.sql";
import { dailyMetrics, metricsOverRange } from "@/server/store/postgres/daily-metrics.sql";
import { adsDetailedStatement, campaignsDetailedStatement, networkBoughtCampaigns } from "@/server/store/postgres/detailed-report.sql";
import { publisherReportStatement } from "@/server/store/postgres/publisher-report.sql";
import type { ReportStatement } from "@/server/store/postgres/report-runner";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { InvalidTrafficDay, ReportRows } from "@/server/store/report-rows";
import type { ReportReads } from "@/server/store/store";
import { invalidTrafficDays, keyedFigures, measuredFigures, type RollupRows } from "./report-totals.ch.sql";

type DayRange = { startDate: string; endDate: string };

/**
 * A report's rows once its figures are fetched. The fetch runs once for the rows however often
 * they are read: a download that waits for its slots opens them again, and ClickHouse is not
 * asked again for it. A failed fetch is tried afresh by the next read.
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
    open: async (options) => (await ready()).open(options),
  };
}

/** The rollup rows of a scope over a range, narrowed by `more` (a request's id filters): what a report may count. */
const scoped = (scope: ReportScope, range: DayRange, ...more: RollupRows["where"]): RollupRows => ({
  range: { startDate: range.startDate, endDate: range.endDate },
  where: [["advertiser_id", scope.advertiserId], ["publisher_id", scope.publisherIds], ...more],
});

/**
 * The detailed reports' rows: an advertiser's report, which Postgres reads without the publisher
 * scope too. Sub-publisher rows are fetched only for campaigns bought through a network.
 */
const detailedRows = async (grain: "campaign" | "ad", scope: ReportScope, query: ReportQuery<string>) => {
  const rows: RollupRows = {
    range: { startDate: query.startDate, endDate: query.endDate },
    where: [
      ["advertiser_id", scope.advertiserId],
      ["advertiser_id", query.ids.advertiser_id],
      ["campaign_id", query.ids.campaign_id],
      ["ad_id", grain === "ad" ? query.ids.ad_id : undefined],
    ],
  };
  const networkCampaigns = await networkBoughtCampaigns(scope, query.ids);
  return measuredFigures(grain, rows, networkCampaigns);
};

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
  campaignsDetailed: (scope, query) =>
    afterFetch(
      () => detailedRows("campaign", scope, query),
      (rows) => campaignsDetailedStatement(scope, query, rows),
    ),
  adsDetailed: (scope, query) =>
    afterFetch(
      () => detailedRows("ad", scope, query),
      (rows) => adsDetailedStatement(scope, query, rows),
    ),
  campaign: campaignDetailOf({
    campaigns,
    adResults,
    days: async (scope, campaignId, range) =>
      dailyMetrics(scope, range, campaignId, await keyedFigures("day", scoped(scope, range, ["campaign_id", campaignId]))),
  }),
  metricsOverRange: async (scope, range) => metricsOverRange(scope, range, await keyedFigures("day", scoped(scope, range))),
  invalidTrafficByDay: async (scope, range) => {
    const found = new Map((await invalidTrafficDays(scoped(scope, range))).map((day) => [day.day, day]));
    const days: InvalidTrafficDay[] = [];
    for (let day = range.startDate; day <= range.endDate; day = addDays(day, 1)) days.push(found.get(day) ?? zeroDay(day));
    return days;
  },
};
