// What every report read of the store answers, whatever the engine behind it: the rows of each
// report, the names it may be sorted by, and how its rows are read (a page, or every row through
// one read for a download). Routes, procedures, jobs and the dashboard's pages use these types;
// the SQL that fills them is in the engine's folder (store/postgres/).
import type { FilteredColumn } from "@/server/core/event-status";
import type { DbConnection } from "@/server/db/pg-pool";
import type { Metrics } from "./metrics";

/** What every metric report may be sorted by, beside its own columns. */
export const METRIC_ORDER_BY = ["impressions_total", "clicks_total", "ad_revenue", "conversions_total", "sales_revenue", "ctr"] as const;

export const ADVERTISER_REPORT_ORDER_BY = [...METRIC_ORDER_BY, "advertiser"] as const;
export type AdvertiserReportOrderBy = (typeof ADVERTISER_REPORT_ORDER_BY)[number];
export const PUBLISHER_REPORT_ORDER_BY = [...METRIC_ORDER_BY, "publisher"] as const;
export type PublisherReportOrderBy = (typeof PUBLISHER_REPORT_ORDER_BY)[number];
export const CAMPAIGN_LISTING_ORDER_BY = [...METRIC_ORDER_BY, "name", "start_date"] as const;
export type CampaignListingOrderBy = (typeof CAMPAIGN_LISTING_ORDER_BY)[number];
export const AD_RESULTS_ORDER_BY = [...METRIC_ORDER_BY, "name"] as const;
export type AdResultsOrderBy = (typeof AD_RESULTS_ORDER_BY)[number];
export const DETAILED_REPORT_ORDER_BY = ["day", ...METRIC_ORDER_BY, "name"] as const;
export type DetailedReportOrderBy = (typeof DETAILED_REPORT_ORDER_BY)[number];
export type DetailedGrain = "campaign" | "ad";

export interface ReportPage<Row> {
  data: Row[];
  page: number;
  per_page: number;
  total: number;
}

/** Every row of a read, batch by batch; close() ends it early. */
export interface RowCursor<Row> {
  batches: AsyncGenerator<Row[]>;
  /** Idempotent; safe while a batch is being read. */
  close(): Promise<void>;
  /** Settles once the read has let go of its connection: read to the end, closed early, or failed (a lost connection too). */
  ended: Promise<"done" | "closed" | "failed">;
}

/**
 * Runs before a read's first row, on a Postgres connection the read holds until it ends: a
 * download takes its slots there as transaction locks, so they end with the read whatever ends it.
 * The slots live in Postgres whatever the store; a store that reads elsewhere holds such a
 * connection beside its read.
 */
export type ReadClaim = (connection: DbConnection) => Promise<void>;

/** A report's rows in one order: one page of them, or all of them through one read. */
export interface ReportRows<Row> {
  page(page: { page: number; perPage: number }): Promise<ReportPage<Row>>;
  /** Every row, `batch` at a time; the caller must close() it or read it to the end. */
  open(options: { batch: number; claim?: ReadClaim }): Promise<RowCursor<Row>>;
}

export interface AdvertiserReportRow extends Metrics {
  advertiser: string;
  advertiser_id: string;
  seller_id: string | null;
  wallet_balance: number;
  daily_budget: number | null;
  currency: string;
}

export interface PublisherReportRow extends Metrics {
  publisher: string;
  publisher_id: string;
  /** The network that resells this publisher's inventory, if any. */
  network_id: string | null;
  /** The publisher's sites, comma-separated. */
  sites: string;
}

export interface CampaignListingRow extends Metrics {
  campaign_id: string;
  name: string;
  campaign_type: string;
  campaign_status: string;
  advertiser_id: string;
  start_date: string;
  end_date: string | null;
}

export interface AdResultsRow extends Metrics {
  ad_id: string;
  name: string;
  campaign_id: string;
  advertiser_id: string;
  ad_type: string;
  ad_size: string | null;
  ad_status: string;
  ad_media_url: string | null;
  /** The campaign's bid per thousand impressions when it buys by CPM, else null. */
  cpm: number | null;
  /** The campaign's bid per click when it buys by CPC, else null. */
  cpc: number | null;
  /** The SKUs the ad promotes (its own products, else its campaign's), comma-separated. */
  product_sku: string;
}

interface DetailedRowBase extends Metrics {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** `campaign` or `ad`: the row's totals on every publisher; `sub_publisher`: one publisher's share. */
  level: DetailedGrain | "sub_publisher";
  campaign_id: string;
  advertiser_id: string;
  /**
   * Total rows: the networks the campaign buys through, comma-separated (null for a direct
   * campaign). Sub-publisher rows: the network the publisher belongs to.
   */
  network_id: string | null;
  /** Sub-publisher rows only (null on total rows). */
  publisher_id: string | null;
  publisher: string | null;
}

export interface CampaignsDetailedRow extends DetailedRowBase {
  name: string;
  campaign_type: string;
}

export interface AdsDetailedRow extends DetailedRowBase {
  ad_id: string;
  name: string;
  ad_type: string;
  campaign: string;
}

export interface DayMetrics extends Metrics {
  /** YYYY-MM-DD (UTC). */
  day: string;
}

export interface CampaignDetail extends CampaignListingRow {
  daily: DayMetrics[];
  /** Its ads by impressions, the first 1,000 (/ad/results/v2?campaign_id= pages through all). */
  ads: AdResultsRow[];
  /** How many ads the campaign has in scope, listed or not. */
  ads_total: number;
}

export type InvalidTrafficDay = { day: string; counted_events: number } & Record<FilteredColumn, number>;
