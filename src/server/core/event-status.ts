// What Tally decided about a stored beacon. Only `counted` events are billed, reported as traffic
// and exported; every other status is kept, never counted, and counted per reason in the report
// tables (docs/ingest.md, "Invalid traffic").

/** Invalid traffic beyond repeats and known bots, each with its own rule in pipeline/settle/traffic-rules.ts. */
export const INVALID_TRAFFIC_REASONS = ["session_mismatch", "token_reuse", "no_user_agent", "click_velocity"] as const;
export type InvalidTrafficReason = (typeof INVALID_TRAFFIC_REASONS)[number];

export type EventStatus = "counted" | "duplicate" | "bot" | InvalidTrafficReason;

/** Every status that is filtered out, and the report tables' column that counts it. */
export const FILTERED_STATUSES = [
  { status: "duplicate", column: "duplicate_events" },
  { status: "bot", column: "bot_events" },
  ...INVALID_TRAFFIC_REASONS.map((reason) => ({ status: reason, column: `${reason}_events` as const })),
] as const;

export type FilteredColumn = (typeof FILTERED_STATUSES)[number]["column"];
