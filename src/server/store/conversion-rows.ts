// What settling and attribution hand the store, and what the store answers, for orders: the rows
// of an accepted order, the outcome of its receipt, and what one attribution batch did. Engine-
// neutral: the Postgres statements that take them are in store/postgres/.

/** How a stored order was verified (conversions.verified_by); null: it was not. */
export type VerifiedBy = "api_key" | "order_token";

/** An order line as conversions.items keeps it (micro-units as JSON numbers: below 2^53). */
export interface ConversionItemToStore {
  sku: string;
  product_id: string | null;
  seller_id: string | null;
  quantity: number;
  price_micros: number;
  promotional_price_micros: number;
}

/** An accepted order, in the column names of `conversions`. */
export interface ConversionToStore {
  event_id: string;
  publisher_id: string;
  order_id: string;
  user_id: string;
  session_id: string;
  channel: string;
  site: string;
  placed_at: Date;
  gender: string | null;
  uf: string | null;
  city: string | null;
  is_company: boolean | null;
  email_hashed: string;
  phone_hashed: string | null;
  social_id_hashed: string | null;
  first_name_hashed: string | null;
  last_name_hashed: string | null;
  /** When the order was received: its receipt in the log, or the time its sender fixed (tests). */
  received_at: Date;
  items: ConversionItemToStore[];
  /** What proved the order (its publisher's API key, or a token signed with its secret); null: nothing did. */
  verified_by: VerifiedBy | null;
  /** Decided when it is settled: whether its attributed items count in conversions and sales. */
  credited: boolean;
}

/** `stored`, or `duplicate` when the order was first received less than 30 days before. */
export type ConversionOutcome = "stored" | "duplicate";

/** The interface's window (docs/interface.md §8), used for campaign types without a row in attribution_windows. */
export const DEFAULT_WINDOW_SECONDS = 14 * 24 * 60 * 60;

export interface AttributedBatch {
  /** Orders taken from the queue and marked attributed (set-aside ones included). */
  orders: number;
  /** Items that got an attribution. */
  items: number;
  /** Orders with at least one attributed item. */
  attributedOrders: number;
  /** Orders that made attribution fail (their data, or their cost): marked done without attribution, with the reason. */
  setAside: number;
  /** Whether more orders may be waiting: the batch was full (in orders or lines), or its time ran out. */
  more: boolean;
}

/** What attribution did, over one batch or many. */
export type AttributionCounts = Omit<AttributedBatch, "more">;
