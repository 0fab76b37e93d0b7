// How long settled raw rows are kept, and which export destinations hold them past that because
// they have not delivered them yet: retention (upkeep/raw-retention.sql.ts) drops nothing a
// destination still holds, and the dashboard shows each destination its hold. With ClickHouse as
// the store, ad events and credited order items are exported from ClickHouse: Postgres keeps raw
// rows only as long as decisions look back on them, and destinations hold only orders there.
import { env } from "@/env";
import { DAY_MS, utcDay } from "@/server/core/days";
import { EVENT_TYPES, type EventType, isEventType } from "@/server/core/export-types";
import { store } from "@/server/store";
import { type DestinationPosition, destinationPositions } from "./runs.sql";
import { initialWatermark } from "./schedule";

/** Raw rows are kept at least this long: the order de-duplication window and a day. */
export const MIN_RAW_RETENTION_DAYS = 31;

/** How long raw rows are kept, and how much longer a destination behind may hold them. */
export interface RawRetentionPolicy {
  days: number;
  maxHoldDays: number;
  /**
   * ClickHouse keeps the settled rows (CLICKHOUSE_URL): `days` is MIN_RAW_RETENTION_DAYS, for
   * orders; ad events go once neither attribution nor a token's life looks back on them
   * (raw-retention.sql.ts); only the orders type, exported from Postgres, holds days there.
   */
  clickhouse: boolean;
}

/**
 * The configured policy: TALLY_RAW_RETENTION_DAYS and TALLY_RAW_HOLD_MAX_DAYS, or with ClickHouse
 * as the store what decisions look back on (the order de-duplication window and a day).
 */
export const rawRetentionPolicy = (): RawRetentionPolicy => {
  const clickhouse = store().shipping !== undefined;
  return { days: clickhouse ? MIN_RAW_RETENTION_DAYS : env().TALLY_RAW_RETENTION_DAYS, maxHoldDays: env().TALLY_RAW_HOLD_MAX_DAYS, clickhouse };
};

/** The raw types export destinations read from Postgres, and so hold days of there. */
export const typesHeldInPostgres = (policy: RawRetentionPolicy): readonly EventType[] => (policy.clickhouse ? ["orders"] : EVENT_TYPES);

/** A destination's delivered-to point of one raw type. */
export interface ExportPosition {
  destinationId: string;
  destinationName: string;
  accountId: string;
  type: EventType;
  /** Everything before this instant is delivered. */
  deliveredTo: Date;
}

/** A destination that holds raw rows past retention because it has not delivered them yet. */
export interface RetentionHold extends ExportPosition {
  /** Raw rows before this instant go even undelivered (retention plus the longest hold). */
  droppedBefore: Date;
}

/**
 * Each destination's delivered-to point per raw type: its watermark, or before its first batch
 * where that batch starts (the export's own initialWatermark).
 */
export function rawPositions(positions: DestinationPosition[]): ExportPosition[] {
  return positions.flatMap(({ destinationId, name, accountId, type, createdAt, watermark }) =>
    isEventType(type) ? [{ destinationId, destinationName: name, accountId, type, deliveredTo: watermark ?? initialWatermark(createdAt) }] : [],
  );
}

/** The first instant whose raw rows retention alone would keep: the start of today less `retentionDays`. */
export const retentionCutoff = (now: Date, retentionDays: number) => new Date(Date.parse(`${utcDay(now)}T00:00:00Z`) - retentionDays * DAY_MS);

/** Of `positions`, the destinations that hold raw rows retention would otherwise drop (delivered to before the cutoff). */
export function holdsOf(positions: DestinationPosition[], now: Date, policy: RawRetentionPolicy = rawRetentionPolicy()): RetentionHold[] {
  const cutoff = retentionCutoff(now, Math.max(policy.days, MIN_RAW_RETENTION_DAYS));
  const droppedBefore = new Date(cutoff.getTime() - policy.maxHoldDays * DAY_MS);
  const held = typesHeldInPostgres(policy);
  return rawPositions(positions)
    .filter((position) => held.includes(position.type) && position.deliveredTo < cutoff)
    .map((position) => ({ ...position, droppedBefore }));
}

/** The destinations that hold raw rows retention would otherwise drop. */
export async function retentionHolds(now: Date, policy: RawRetentionPolicy = rawRetentionPolicy()): Promise<RetentionHold[]> {
  return holdsOf(await destinationPositions(), now, policy);
}
