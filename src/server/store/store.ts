// Where settled events, their rollups and the report reads live: the one seam between what Tally
// decides (src/server/pipeline/settle, attribution, the routes and procedures) and the tables that hold
// the results. Routes, procedures and jobs reach these only through `store()`, so a column store
// (ClickHouse) can take settled events, rollups and report reads later without a change to any of
// them; Postgres is the default and the only store built (docs/decisions.md, "The store seam").
//
// What stays in Postgres whatever the store: the logs of accepted beacons and orders, the settle
// cursors, wallets, spend and budgets, accounts, campaigns and the export's books. A settle
// stretch is handed to the store inside the Postgres transaction that moves the shard's cursor; a
// store outside Postgres writes keyed by event id, so a stretch written twice (a worker that died
// before its commit) counts once.
import type pg from "pg";
import type { EventStatus } from "@/server/core/event-status";
import type { ReportScope } from "@/server/pipeline/report/report-scope";
import type { AdResultsOrderBy, AdResultsRow } from "@/server/store/postgres/ad-results.sql";
import type { AdvertiserReportOrderBy, AdvertiserReportRow } from "@/server/store/postgres/advertiser-report.sql";
import type { AttributedBatch } from "@/server/store/postgres/attribute-batch.sql";
import type { CampaignDetail } from "@/server/store/postgres/campaign-detail.sql";
import type { CampaignListingOrderBy, CampaignListingRow } from "@/server/store/postgres/campaign-listing.sql";
import type { DayMetrics } from "@/server/store/postgres/daily-metrics.sql";
import type { AdsDetailedRow, CampaignsDetailedRow, DetailedReportOrderBy } from "@/server/store/postgres/detailed-report.sql";
import type { InvalidTrafficDay } from "@/server/store/postgres/invalid-traffic.sql";
import type { PublisherReportOrderBy, PublisherReportRow } from "@/server/store/postgres/publisher-report.sql";
import type { ReportStatement } from "@/server/store/postgres/report-runner";
import type { ConversionToStore } from "@/server/store/postgres/store-conversions.sql";
import type { Metrics } from "./metrics";
import type { ReportQuery } from "./report-query";
import type { LoggedBeacon, SettledBeacon, StoredHistory, TrafficLimits } from "./settle-types";

type DayRange = { startDate: string; endDate: string };

/** Writing what settling and attribution decided. */
export interface SettledEvents {
  /**
   * What was stored before each of `beacons` (one answer each, in order), for the invalid-traffic
   * rules to decide against, looked up within their `limits`, inside the settle transaction `tx`.
   */
  beaconHistory(tx: pg.PoolClient, beacons: readonly LoggedBeacon[], limits: TrafficLimits): Promise<StoredHistory[]>;
  /** Records a stretch of one shard's beacons with the statuses the rules decided (one each): events, spend and rollups, inside `tx`. */
  storeBeacons(tx: pg.PoolClient, batch: readonly LoggedBeacon[], statuses: readonly EventStatus[]): Promise<SettledBeacon[]>;
  /** Stores a stretch of accepted orders (the attribution queue), inside the settle transaction `tx`. */
  storeConversions(tx: pg.PoolClient, batch: ConversionToStore[]): Promise<void>;
  /** Attributes up to `limit` orders received at or before `receivedBefore` and writes their credit to the rollups. */
  attributeBatch(limit: number, receivedBefore: Date, now: Date): Promise<AttributedBatch>;
}

/** Every report Tally serves, read from the rollups; each paged one as a statement the runner pages or streams. */
export interface ReportReads {
  advertisers(scope: ReportScope, query: ReportQuery<AdvertiserReportOrderBy>): ReportStatement<AdvertiserReportRow>;
  /** Publishers; `networkId`: only that network's sub-publishers (the network publishers report). */
  publishers(scope: ReportScope, query: ReportQuery<PublisherReportOrderBy>, networkId?: string | null): ReportStatement<PublisherReportRow>;
  campaigns(scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>): ReportStatement<CampaignListingRow>;
  campaignsDetailed(scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): ReportStatement<CampaignsDetailedRow>;
  adsDetailed(scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): ReportStatement<AdsDetailedRow>;
  adResults(scope: ReportScope, query: ReportQuery<AdResultsOrderBy>): ReportStatement<AdResultsRow>;
  campaign(scope: ReportScope, campaignId: string, query: ReportQuery<string>, options?: { withAds?: boolean }): Promise<CampaignDetail | null>;
  /** The dashboard's figures: totals and days of a scope. */
  metricsOverRange(scope: ReportScope, range: DayRange): Promise<{ total: Metrics; daily: DayMetrics[] }>;
  invalidTrafficByDay(scope: ReportScope, range: DayRange): Promise<InvalidTrafficDay[]>;
}

export interface TallyStore {
  name: string;
  settled: SettledEvents;
  reports: ReportReads;
}
