// The Postgres store: settled events, rollups and report reads in the same database as everything
// else, each written or read by the hand-written SQL beside its domain.

import type { TallyStore } from "@/server/store/store";
import { adResultsStatement } from "./ad-results.sql";
import { advertiserReportStatement } from "./advertiser-report.sql";
import { attributeBatch } from "./attribute-batch.sql";
import { campaignDetail } from "./campaign-detail.sql";
import { campaignListingStatement } from "./campaign-listing.sql";
import { metricsOverRange } from "./daily-metrics.sql";
import { adsDetailedStatement, campaignsDetailedStatement } from "./detailed-report.sql";
import { postgresExportReads } from "./export-batches.sql";
import { hoursReport } from "./hours-report.sql";
import { invalidTrafficByDay } from "./invalid-traffic.sql";
import { publisherReportStatement } from "./publisher-report.sql";
import { readableReportZones } from "./report-zone.sql";
import { beaconHistory, storeBeacons } from "./settle-beacons.sql";
import { storeConversions } from "./store-conversions.sql";
import { firstDayWithRawRows, rawRowsKeptFrom, rebuildRollups, verifyRollups } from "./verify-rollups.sql";
import { zoneBackfill } from "./zone-backfill.sql";

export const postgresStore: TallyStore = {
  name: "postgres",
  settled: { beaconHistory, storeBeacons, storeConversions, attributeBatch },
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
    hours: hoursReport,
    readableZones: () => readableReportZones(),
  },
  exports: postgresExportReads,
  rollups: { verify: verifyRollups, rebuild: rebuildRollups, firstDayWithRawRows, rawRowsKeptFrom, zoneBackfill },
};
