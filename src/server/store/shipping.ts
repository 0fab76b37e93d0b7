// Shipping settled rows to a store outside Postgres: what the seam tells the loops, health and
// metrics about it. Only a store that keeps its rows elsewhere (ClickHouse) has a shipper; with
// Postgres as the store, settled rows are already where reports read them.

/** The settled tables that are shipped, by their Postgres names. */
export type ShippedTable = "ad_events" | "attributions";

export interface ShipOutcome {
  /** Batches marked shipped by this run. */
  batches: number;
  /** Rows sent (rows ClickHouse already held are not counted). */
  rows: number;
  /** Rows ClickHouse refused, set aside. */
  setAside: number;
  /** The failure that ended the run early, if one did. */
  error: string | null;
}

export interface ShipperState {
  /** Batches not yet shipped. */
  waiting: number;
  /** Seconds since the oldest of them was settled; 0 when none waits. */
  lagSeconds: number;
  /** Rows ClickHouse refused, over all time. */
  setAside: number;
  /** The last failure of a waiting batch, if any. */
  lastError: string | null;
}

export interface Shipping {
  /**
   * Ships waiting batches, up to `limit` and until `deadline` (ms since the epoch). With
   * `gatherSeconds`, ships nothing until the oldest waiting batch has waited that long or enough
   * wait to fill an insert: fewer, larger inserts, for a loop that would otherwise send each as
   * soon as it is settled.
   */
  ship(options?: { limit?: number; deadline?: number; gatherSeconds?: number }): Promise<ShipOutcome>;
  state(): Promise<ShipperState>;
  /** The earliest time whose rows of `table` Postgres must keep until they ship; null when all have. */
  unshippedSince(table: ShippedTable): Promise<Date | null>;
  /** The earliest created_at (receipt of events, credit of attributions) of a settled row not yet in ClickHouse; null when all are. */
  oldestUnshippedRow(): Promise<Date | null>;
  /** Forgets shipped batches whose rows Postgres no longer keeps (their partition key before `before`); returns how many. */
  forgetShipped(before: Date): Promise<number>;
}
