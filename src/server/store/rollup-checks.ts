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

/** A zone's daily report rows (from `since`) or its hourly ones (from `hours_since`). */
export type ZoneRowsGrain = "days" | "hours";

/** How far a kept zone's rows of one grain still are from the first day of raw rows held. */
export interface ZoneBehind {
  zone: string;
  grain: ZoneRowsGrain;
  /** Where the zone's rows of this grain start. */
  start: Date;
  /** UTC days (a part of one counting as one) between the first raw day held and `start`: what backfill can still add. */
  daysBehind: number;
}

/** A stretch backfill added to a zone's rows: the UTC moments [from, to), `from` the zone's new start. */
export interface ZoneStretch {
  zone: string;
  grain: ZoneRowsGrain;
  from: Date;
  to: Date;
}

/**
 * Moving kept zones' starts back over the days whose raw rows are still held (upkeep), so that
 * a zone added late reads its own local days for as far back as the raw rows allow.
 */
export interface ZoneBackfill {
  /** Every kept zone and grain with how many days it still lacks; none in a store whose rollups are UTC days only. */
  behind(): Promise<ZoneBehind[]>;
  /**
   * Moves one zone's start of one grain back to the UTC midnight before it, adding the recount of
   * the raw rows of that stretch to the zone's rows; the writers go on while it recounts, and
   * wait only while it adds what they stored of the stretch meanwhile. Null when there is
   * nothing to move (the first held raw day reached, the zone no longer kept, or another process
   * is at the same zone). A statement running past `statementTimeoutMs` fails the step and
   * changes nothing. `hooks.whileRecounting` runs while it recounts (tests).
   */
  step(zone: string, grain: ZoneRowsGrain, statementTimeoutMs: number, hooks?: { whileRecounting?: () => Promise<void> }): Promise<ZoneStretch | null>;
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
  zoneBackfill: ZoneBackfill;
}
