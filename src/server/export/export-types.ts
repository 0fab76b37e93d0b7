// The six export types come in two kinds: events (layouts A-C: Snappy Parquet, batched by the time
// rows were received or credited) and aggregates (a day's report rows: CSV, one file a day).
import type { ExportType } from "@/server/db/generated/enums";
import { type AGGREGATE_TYPES, EVENT_TYPES } from "./destination-input";

export type EventType = (typeof EVENT_TYPES)[number];
export type AggregateType = (typeof AGGREGATE_TYPES)[number];

export const isEventType = (type: ExportType): type is EventType => (EVENT_TYPES as readonly string[]).includes(type);

/** The ending of a file's key. */
export const extensionOf = (type: ExportType) => (isEventType(type) ? ".snappy.parquet" : ".csv");

/** The Content-Type a file is uploaded with. */
export const contentTypeOf = (type: ExportType) => (isEventType(type) ? "application/vnd.apache.parquet" : "text/csv; charset=utf-8");
