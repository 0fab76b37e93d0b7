// Where settled events, their rollups, the report and export reads and the rollup check live: the
// one seam between what Tally decides (src/server/pipeline/, the routes and procedures) and the
// tables that hold the results. Everything reaches these only through `store()`, with the types
// defined beside this file (no SQL text and no pg type crosses it), so a column store (ClickHouse)
// can take them later without a change to any caller; Postgres is the default and the only store
// built, in store/postgres/ (docs/decisions/0005-store-seam.md).
//
// What stays in Postgres whatever the store: the logs of accepted beacons and orders, the settle
// cursors, wallets, spend and budgets, accounts, campaigns and the export's books. A settle
// stretch is handed to the store inside the Postgres transaction that moves the shard's cursor; a
// store outside Postgres writes keyed by event id, so a stretch written twice (a worker that died
// before its commit) counts once.
import type { EventStatus } from "@/server/core/event-status";
import type { DbConnection } from "@/server/db/pg-pool";
import type { AttributedBatch, ConversionToStore } from "@/server/store/conversion-rows";
import type { ExportReads } from "./export-rows";
import type { HoursReport } from "./hours-report";
import type { Metrics } from "./metrics";
import type { ReadableZone, ReportQuery, ReportScope, ZonedRange } from "./report-query";
import type {
  AdResultsOrderBy,
  AdResultsRow,
  AdsDetailedRow,
  AdvertiserReportOrderBy,
  AdvertiserReportRow,
  CampaignDetail,
  CampaignListingOrderBy,
  CampaignListingRow,
  CampaignsDetailedRow,
  DayMetrics,
  DetailedReportOrderBy,
  InvalidTrafficDay,
  PublisherReportOrderBy,
  PublisherReportRow,
  ReportRows,
} from "./report-rows";
import type { RollupChecks } from "./rollup-checks";
import type { LoggedBeacon, PricedEvents, SettledBeacon, StoredHistory, TrafficLimits } from "./settle-types";
import type { Shipping } from "./shipping";

/** Writing what settling and attribution decided. */
export interface SettledEvents {
  /**
   * What was stored before each of `beacons` (one answer each, in order), for the invalid-traffic
   * rules to decide against, looked up within their `limits`, inside the settle transaction `tx`.
   */
  beaconHistory(tx: DbConnection, beacons: readonly LoggedBeacon[], limits: TrafficLimits): Promise<StoredHistory[]>;
  /**
   * Records a stretch of one shard's beacons with the statuses the rules decided and what settling
   * priced (one each, with the advertiser's local date each charge counts toward): events, spend
   * and rollups, inside `tx`.
   */
  storeBeacons(tx: DbConnection, batch: readonly LoggedBeacon[], statuses: readonly EventStatus[], priced: PricedEvents): Promise<SettledBeacon[]>;
  /** Stores a stretch of accepted orders (the attribution queue), inside the settle transaction `tx`. */
  storeConversions(tx: DbConnection, batch: ConversionToStore[]): Promise<void>;
  /** Attributes up to `limit` orders received at or before `receivedBefore` and writes their credit to the rollups. */
  attributeBatch(limit: number, receivedBefore: Date, now: Date): Promise<AttributedBatch>;
}

/**
 * Every report Tally serves, read from the rollups; each listing as rows read a page at a time or
 * all through one read. Every range is local dates of a zone the store reads (readableZones).
 */
export interface ReportReads {
  advertisers(scope: ReportScope, query: ReportQuery<AdvertiserReportOrderBy>): ReportRows<AdvertiserReportRow>;
  /** Publishers; `networkId`: only that network's sub-publishers (the network publishers report). */
  publishers(scope: ReportScope, query: ReportQuery<PublisherReportOrderBy>, networkId?: string | null): ReportRows<PublisherReportRow>;
  campaigns(scope: ReportScope, query: ReportQuery<CampaignListingOrderBy>): ReportRows<CampaignListingRow>;
  campaignsDetailed(scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): ReportRows<CampaignsDetailedRow>;
  adsDetailed(scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>): ReportRows<AdsDetailedRow>;
  adResults(scope: ReportScope, query: ReportQuery<AdResultsOrderBy>): ReportRows<AdResultsRow>;
  campaign(scope: ReportScope, campaignId: string, query: ReportQuery<string>, options?: { withAds?: boolean }): Promise<CampaignDetail | null>;
  /** The dashboard's figures: totals and days of a scope. */
  metricsOverRange(scope: ReportScope, range: ZonedRange): Promise<{ total: Metrics; daily: DayMetrics[] }>;
  invalidTrafficByDay(scope: ReportScope, range: ZonedRange): Promise<InvalidTrafficDay[]>;
  /** The hours report: the range's figures by local weekday and hour in `query.zone`, filtered by its ids. */
  hours(scope: ReportScope, query: ReportQuery<string>): Promise<HoursReport>;
  /** The zones this store reads reports in exactly, UTC first; a report in another is refused. */
  readableZones(): Promise<ReadableZone[]>;
}

export interface TallyStore {
  name: string;
  settled: SettledEvents;
  reports: ReportReads;
  exports: ExportReads;
  rollups: RollupChecks;
  /** Present when settled rows live outside Postgres: the outbox's shipper. */
  shipping?: Shipping;
}
