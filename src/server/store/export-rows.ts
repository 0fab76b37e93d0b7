// What an export file holds, whatever the store reads it from (docs/interface.md §2.5,
// docs/interface-decisions.md §6): the three event layouts as Parquet columns, the three aggregated
// layouts as CSV columns over the report rows of a local day in the account's zone (so an exported
// day has the numbers the reports show for it in that zone), and the reads the export makes of a batch. A batch is a range of time
// (events) or a day (aggregates); each row has an identity, text unique in the batch and read from
// stored columns only, so a row the export cannot read or encode is found by splitting the batch
// into ranges of ids and set aside by its id (pipeline/export/job/poison.ts).

import type { AggregateLayout, AggregateType, EventType, ExportTypeName } from "@/server/core/export-types";
import { localDay, UTC } from "@/server/core/time-zones";
import type { ParquetColumn } from "@/server/formats/parquet/parquet-writer";
import { METRIC_FIELDS } from "./metrics";
import type { ReportScope } from "./report-query";

const text = (name: string, nullable = false): ParquetColumn => ({ name, type: "string", nullable });
const time = (name: string): ParquetColumn => ({ name, type: "timestamp", nullable: false });
const double = (name: string): ParquetColumn => ({ name, type: "double", nullable: false });

/** Layouts A (counted ad events), B (orders) and C (credited order items), in file column order. */
export const EVENT_COLUMNS: Record<EventType, ParquetColumn[]> = {
  ad_events: [
    text("event_id"),
    text("session_id"),
    text("user_id", true),
    text("ad_id"),
    text("campaign_id"),
    text("request_id"),
    text("ad_type"),
    text("placement_name"),
    text("context"),
    time("created_at"),
    text("site"),
  ],
  orders: [text("event_id"), text("session_id"), text("user_id"), text("order_id"), text("channel"), time("placed_at"), text("site")],
  order_items: [
    text("event_id"),
    text("session_id"),
    text("user_id"),
    text("order_id"),
    text("product_sku"),
    text("ad_id"),
    text("campaign_id"),
    text("request_id"),
    text("ad_size", true),
    text("ad_type"),
    text("placement_name"),
    text("context"),
    time("event_created_at"),
    double("price"),
    double("promotional_price"),
    double("quantity"),
    double("total_value"),
  ],
};

/** The daily aggregates' CSV columns: the report rows' fields (and the day), in file order. */
export const AGGREGATE_COLUMNS: Record<AggregateType, string[]> = {
  advertisers: ["advertiser", "advertiser_id", "seller_id", "wallet_balance", "daily_budget", "currency"],
  campaigns: [
    "day",
    "name",
    "campaign_id",
    "campaign_type",
    "campaign_status",
    "impressions_total",
    "clicks_total",
    "ctr",
    "ad_revenue",
    "conversions_total",
    "conversion_rate",
    "sales_revenue",
    "start_date",
    "end_date",
    "advertiser_id",
  ],
  ads: [
    "day",
    "ad_id",
    "campaign_id",
    "ad_status",
    "ad_media_url",
    "cpm",
    "cpc",
    "impressions_total",
    "clicks_total",
    "ctr",
    "ad_revenue",
    "conversions_total",
    "conversion_rate",
    "sales_revenue",
    "product_sku",
  ],
};

/** The CSV columns of `type` in `layout`: the extended layout appends the metrics the interface's lacks, in the reports' order. */
export function aggregateColumns(type: AggregateType, layout: AggregateLayout = "interface"): readonly string[] {
  const columns = AGGREGATE_COLUMNS[type];
  return layout === "interface" ? columns : [...columns, ...METRIC_FIELDS.filter((field) => !columns.includes(field))];
}

export interface BatchRange {
  rangeStart: Date;
  rangeEnd: Date;
  /** An aggregate batch's IANA zone: the range is one local day of it, read as the reports read that day in it (UTC when absent). */
  zone?: string;
}

/** Which rows of a batch: not the set-aside ids, and those whose id is in (after, upTo] (in byte order). */
export interface RowFilter {
  exclude?: readonly string[];
  after?: string | null;
  upTo?: string | null;
}

/** One batch's rows, as the store reads them for the export. */
export interface ExportBatch {
  type: ExportTypeName;
  /** An aggregate batch's CSV columns, in file order (the cells `cells` gives); none for events. */
  columns?: readonly string[];
  count(filter?: RowFilter): Promise<number>;
  /** The rows, page by page, in the file's order (or any order, for a probe), as the store returns them. */
  read(filter?: RowFilter, options?: { ordered?: boolean }): AsyncGenerator<unknown[]>;
  /** A row as read as the file's cells, in column order; throws for a row that cannot be written. */
  cells(raw: unknown): unknown[];
  /** The id at `offset` (from 0) in id order among the filtered rows, or null. */
  idAt(filter: RowFilter, offset: number): Promise<string | null>;
  /** The greatest id below `id` among the filtered rows, or null. */
  idBefore(filter: RowFilter, id: string): Promise<string | null>;
}

/** The export's reads. */
export interface ExportReads {
  /** The rows of one batch of `type` for the scope of the destination's account (aggregates in `layout`). */
  batch(type: ExportTypeName, scope: ReportScope, range: BatchRange, layout?: AggregateLayout): ExportBatch;
  /**
   * Where an event batch over (start, end] must end to hold at most `maxRows` rows: `end` itself
   * when it holds no more; otherwise just before the first row past the cap, so that rows of one
   * millisecond never straddle two batches (a millisecond that alone holds more goes whole).
   */
  cappedEnd(type: EventType, scope: ReportScope, range: { start: Date; end: Date }, maxRows: number): Promise<Date>;
}

/**
 * Where a capped event batch over (start, end] ends, given `next`, the time of the first row past
 * the cap (null: the batch holds no more than the cap): just before it, or, when that would leave
 * the batch empty (one millisecond holds more rows than the cap), at it.
 */
export function cappedEndAt(next: Date | null, range: { start: Date; end: Date }): Date {
  if (!next) return range.end;
  const before = new Date(next.getTime() - 1);
  return before > range.start ? before : next;
}

/** The local date in `zone` an aggregate batch holds: the one its range begins. */
export const aggregateDate = (range: BatchRange): string => localDay(range.rangeStart, range.zone ?? UTC);

/** The report query of one local day in `zone` that a daily aggregate file holds: every row, in `orderBy` order. */
export function dayQuery<OrderBy extends string>(day: string, orderBy: OrderBy, zone: string = UTC) {
  return { startDate: day, endDate: day, zone, page: 1, perPage: 1, orderBy, order: "asc" as const, download: true, ids: {} };
}
