// The Postgres store: settled events, rollups and report reads in the same database as everything
// else, each written or read by the hand-written SQL beside its domain.
import { attributeBatch } from "@/server/attribution/attribute-batch.sql";
import { storeConversions } from "@/server/conversions/store-conversions.sql";
import { adResultsStatement } from "@/server/reports/ad-results.sql";
import { advertiserReportStatement } from "@/server/reports/advertiser-report.sql";
import { campaignDetail } from "@/server/reports/campaign-detail.sql";
import { campaignListingStatement } from "@/server/reports/campaign-listing.sql";
import { metricsOverRange } from "@/server/reports/daily-metrics.sql";
import { adsDetailedStatement, campaignsDetailedStatement } from "@/server/reports/detailed-report.sql";
import { invalidTrafficByDay } from "@/server/reports/invalid-traffic.sql";
import { publisherReportStatement } from "@/server/reports/publisher-report.sql";
import { settleBeacons } from "@/server/settle/settle-beacons.sql";
import type { TallyStore } from "./store";

export const postgresStore: TallyStore = {
  name: "postgres",
  settled: { settleBeacons, storeConversions, attributeBatch },
  reports: {
    advertisers: advertiserReportStatement,
    publishers: publisherReportStatement,
    campaigns: campaignListingStatement,
    campaignsDetailed: campaignsDetailedStatement,
    adsDetailed: adsDetailedStatement,
    adResults: adResultsStatement,
    campaign: campaignDetail,
    metricsOverRange,
    invalidTrafficByDay,
  },
};
