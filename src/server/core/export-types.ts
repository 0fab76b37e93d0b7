// The six export types come in two kinds: events (layouts A-C: Snappy Parquet, batched by the time
// rows were received or credited) and aggregates (a day's report rows: CSV, one file a day).
// The dashboard's destination form imports this file: no server code in it.

export const EVENT_TYPES = ["ad_events", "orders", "order_items"] as const;
export const AGGREGATE_TYPES = ["advertisers", "campaigns", "ads"] as const;
export const EXPORT_TYPES = [...EVENT_TYPES, ...AGGREGATE_TYPES] as const;
export type ExportTypeName = (typeof EXPORT_TYPES)[number];

export type EventType = (typeof EVENT_TYPES)[number];
export type AggregateType = (typeof AGGREGATE_TYPES)[number];

/**
 * Which columns a destination's aggregate files hold: the interface's, or those followed by every
 * other metric of the report rows (docs/export.md, "Extended layout").
 */
export const AGGREGATE_LAYOUTS = ["interface", "extended"] as const;
export type AggregateLayout = (typeof AGGREGATE_LAYOUTS)[number];

export const isEventType = (type: ExportTypeName): type is EventType => (EVENT_TYPES as readonly string[]).includes(type);

/** The ending of a file's key. */
export const extensionOf = (type: ExportTypeName) => (isEventType(type) ? ".snappy.parquet" : ".csv");

/** The Content-Type a file is uploaded with. */
export const contentTypeOf = (type: ExportTypeName) => (isEventType(type) ? "application/vnd.apache.parquet" : "text/csv; charset=utf-8");
