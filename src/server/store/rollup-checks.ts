// The consistency check of the report rows, whatever the store: every figure that differs from a
// recount of the settled raw rows still kept. `npm run rollups:verify` and the tests use it.

export interface RollupDifference {
  /** The report table the figure is in. */
  table: string;
  day: string;
  /** The row's key; columns the table does not have are null. */
  publisher_id: string | null;
  site: string | null;
  advertiser_id: string | null;
  campaign_id: string | null;
  ad_id: string | null;
  placement_name: string | null;
  /** What is counted: impressions, views, clicks, spend_micros, a filtered reason, a credit measure, or a row count. */
  measure: string;
  /** In the table. */
  stored: string;
  /** Recounted from the raw rows. */
  recounted: string;
}

export interface RollupChecks {
  /** Every report figure between two days (inclusive) that differs from a recount; empty when the report rows are right. */
  verify(from: string, lastDay: string): Promise<RollupDifference[]>;
  /** Rewrites the report rows of the days from the raw rows; returns how many rows it wrote. */
  rebuild(from: string, lastDay: string): Promise<number>;
  /** The first day from `firstDay` on whose raw rows are all still there (retention drops old days; report rows outlive them). */
  firstDayWithRawRows(firstDay: string): Promise<string>;
  /** The first day whose raw rows are all still there, per family; null where retention has removed nothing. */
  rawRowsKeptFrom(): Promise<{ adEvents: string | null; orders: string | null }>;
}
