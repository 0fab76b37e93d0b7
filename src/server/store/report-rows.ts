// What every report read of the store answers, whatever the engine behind it: the rows of each
// report, the names it may be sorted by, and how its rows are read (a page, or every row through
// one read for a download). Routes, procedures, jobs and the dashboard's pages use these types;
// the SQL that fills them is in the engine's folder (store/postgres/).

import { z } from "zod";
import type { FilteredColumn } from "@/server/core/event-status";
import type { DbConnection } from "@/server/db/pg-pool";
import { ZMetrics } from "./metrics";

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

// The rows as schemas: the source of their types, of the API document and of the contract tests.
const id = z.string().describe("Tally's id.");
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
/** A row's day: a local date of the zone the report is read in (its Tally-Time-Zone header). */
const LOCAL_DAY =
  "YYYY-MM-DD, a local date in the report's time zone (the Tally-Time-Zone header); before the zone's start (Tally-Utc-Days-Before), a UTC day.";

export const ZAdvertiserReportRow = ZMetrics.extend({
  advertiser: z.string().describe("The advertiser's name."),
  advertiser_id: id,
  seller_id: z.string().nullable().describe("The advertiser's seller id at the retailer, if it has one."),
  wallet_balance: z.number().describe("What is left in the advertiser's wallet, in its currency."),
  daily_budget: z.number().nullable().describe("The advertiser's daily budget, or null for none."),
  currency: z.string().describe("ISO 4217 code of the advertiser's currency."),
}).meta({ title: "Advertiser report row" });
export type AdvertiserReportRow = z.infer<typeof ZAdvertiserReportRow>;

export const ZPublisherReportRow = ZMetrics.extend({
  publisher: z.string().describe("The publisher's name."),
  publisher_id: id,
  network_id: z.string().nullable().describe("The network that resells this publisher's inventory, if any."),
  sites: z.string().describe("The publisher's sites, comma-separated."),
}).meta({ title: "Publisher report row" });
export type PublisherReportRow = z.infer<typeof ZPublisherReportRow>;

export const ZCampaignListingRow = ZMetrics.extend({
  campaign_id: id,
  name: z.string(),
  campaign_type: z.string().describe("How the campaign buys: for example cpm or cpc."),
  campaign_status: z.string(),
  advertiser_id: id,
  start_date: day.describe("YYYY-MM-DD (UTC)."),
  end_date: day.nullable().describe("YYYY-MM-DD (UTC), or null for a campaign without an end."),
}).meta({ title: "Campaign listing row" });
export type CampaignListingRow = z.infer<typeof ZCampaignListingRow>;

export const ZAdResultsRow = ZMetrics.extend({
  ad_id: id,
  name: z.string(),
  campaign_id: id,
  advertiser_id: id,
  ad_type: z.string().describe("product, banner or video."),
  ad_size: z.string().nullable().describe('"WIDTHxHEIGHT", for example "728x90", or null.'),
  ad_status: z.string(),
  ad_media_url: z.string().nullable(),
  cpm: z.number().nullable().describe("The campaign's bid per thousand impressions when it buys by CPM, else null."),
  cpc: z.number().nullable().describe("The campaign's bid per click when it buys by CPC, else null."),
  product_sku: z.string().describe("The SKUs the ad promotes (its own products, else its campaign's), comma-separated."),
}).meta({ title: "Ad results row" });
export type AdResultsRow = z.infer<typeof ZAdResultsRow>;

const ZDetailedRowBase = ZMetrics.extend({
  day: day.describe(LOCAL_DAY),
  level: z
    .enum(["campaign", "ad", "sub_publisher"])
    .describe("`campaign` or `ad`: the row's totals on every publisher; `sub_publisher`: one publisher's share."),
  campaign_id: id,
  advertiser_id: id,
  network_id: z
    .string()
    .nullable()
    .describe(
      "Total rows: the networks the campaign buys through, comma-separated (null for a direct campaign). Sub-publisher rows: the network the publisher belongs to.",
    ),
  publisher_id: z.string().nullable().describe("Sub-publisher rows only (null on total rows)."),
  publisher: z.string().nullable().describe("Sub-publisher rows only (null on total rows)."),
});

export const ZCampaignsDetailedRow = ZDetailedRowBase.extend({
  name: z.string(),
  campaign_type: z.string(),
}).meta({ title: "Campaign day row" });
export type CampaignsDetailedRow = z.infer<typeof ZCampaignsDetailedRow>;

export const ZAdsDetailedRow = ZDetailedRowBase.extend({
  ad_id: id,
  name: z.string(),
  ad_type: z.string(),
  campaign: z.string().describe("The campaign's name."),
}).meta({ title: "Ad day row" });
export type AdsDetailedRow = z.infer<typeof ZAdsDetailedRow>;

export const ZDayMetrics = ZMetrics.extend({ day: day.describe(LOCAL_DAY) }).meta({ title: "Day" });
export type DayMetrics = z.infer<typeof ZDayMetrics>;

export const ZCampaignDetail = ZCampaignListingRow.extend({
  daily: z.array(ZDayMetrics).describe("The campaign's figures per day of the range."),
  ads: z.array(ZAdResultsRow).describe("Its ads by impressions, the first 1,000 (/ad/results/v2?campaign_id= pages through all)."),
  ads_total: z.int().describe("How many ads the campaign has in scope, listed or not."),
}).meta({ title: "Campaign detail" });
export type CampaignDetail = z.infer<typeof ZCampaignDetail>;

/** The JSON answer of a paged report: one page of rows and where it sits. */
export function reportPageSchema<Row extends z.ZodType>(row: Row) {
  return z.object({
    data: z.array(row),
    page: z.int().min(1).describe("The page answered, from 1."),
    per_page: z.int().min(1).describe("Rows per page asked for."),
    total: z.int().min(0).describe("Rows of the whole report over every page."),
  });
}

export type InvalidTrafficDay = { day: string; counted_events: number } & Record<FilteredColumn, number>;
