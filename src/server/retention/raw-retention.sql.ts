// Retention of the settled raw rows: ad_events, and conversions with their attributions (which
// share the order's day, so an order and its credited items go together). Reports read only the
// rollups, so they are unchanged when raw days go; what the raw rows are still needed for holds
// them:
//   - TALLY_RAW_RETENTION_DAYS (at least the 30-day order de-duplication window, which is longer
//     than the beacon de-duplication windows and token lives);
//   - ad_events: the longest attribution window (14 days unless set longer, up to 90) before
//     today, and before the oldest order still waiting for attribution;
//   - every export destination that is not disabled, until it has delivered the day: its
//     watermark of ad_events holds ad_events, its watermark of orders or order items holds
//     conversions and attributions (a destination far behind holds them, and the dashboard says
//     so), for at most TALLY_RAW_HOLD_MAX_DAYS past retention: any tenant can add a destination
//     whose credentials never work, and none may make Tally keep every raw row for ever;
//   - an order still waiting for attribution holds its own day.
// Hand-written SQL: partitions are dropped by name and the holds are aggregates over few rows.
import { env } from "@/env";
import { attributionWindows } from "@/server/attribution/attribution-windows";
import { addDays, DAY_MS, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { type EventType, isEventType } from "@/server/export/export-types";
import { type DestinationPosition, destinationPositions } from "@/server/export/runs.sql";
import { initialWatermark } from "@/server/export/schedule";
import { type DayPartition, dayPartitions, dropPartition } from "./day-partitions.sql";

/** Raw rows are kept at least this long: the order de-duplication window and a day. */
export const MIN_RAW_RETENTION_DAYS = 31;

/** How long raw rows are kept, and how much longer a destination behind may hold them. */
export interface RawRetentionPolicy {
  days: number;
  maxHoldDays: number;
}

/** The configured policy (TALLY_RAW_RETENTION_DAYS, TALLY_RAW_HOLD_MAX_DAYS). */
export const rawRetentionPolicy = (): RawRetentionPolicy => ({ days: env().TALLY_RAW_RETENTION_DAYS, maxHoldDays: env().TALLY_RAW_HOLD_MAX_DAYS });

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
function rawPositions(positions: DestinationPosition[]): ExportPosition[] {
  return positions.flatMap(({ destinationId, name, accountId, type, createdAt, watermark }) =>
    isEventType(type) ? [{ destinationId, destinationName: name, accountId, type, deliveredTo: watermark ?? initialWatermark(createdAt, type) }] : [],
  );
}

/** The first instant whose raw rows retention alone would keep: the start of today less `retentionDays`. */
export const retentionCutoff = (now: Date, retentionDays: number) => new Date(Date.parse(`${utcDay(now)}T00:00:00Z`) - retentionDays * DAY_MS);

/** Of `positions`, the destinations that hold raw rows retention would otherwise drop (delivered to before the cutoff). */
export function holdsOf(positions: DestinationPosition[], now: Date, policy: RawRetentionPolicy = rawRetentionPolicy()): RetentionHold[] {
  const cutoff = retentionCutoff(now, Math.max(policy.days, MIN_RAW_RETENTION_DAYS));
  const droppedBefore = new Date(cutoff.getTime() - policy.maxHoldDays * DAY_MS);
  return rawPositions(positions)
    .filter((position) => position.deliveredTo < cutoff)
    .map((position) => ({ ...position, droppedBefore }));
}

/** The destinations that hold raw rows retention would otherwise drop. */
export async function retentionHolds(now: Date, policy: RawRetentionPolicy = rawRetentionPolicy()): Promise<RetentionHold[]> {
  return holdsOf(await destinationPositions(), now, policy);
}

const earliest = (moments: (Date | null | undefined)[]): number =>
  Math.min(Number.POSITIVE_INFINITY, ...moments.filter((m): m is Date => m instanceof Date).map((m) => m.getTime()));

interface Horizons {
  /** The start of the first day retention alone keeps. */
  cutoff: number;
  /** ad_events before this instant may go: the cutoff, or earlier where exports or attribution still need them. */
  adEvents: number;
  /** Orders (and their items) last changed before this instant are delivered to every destination. */
  ordersDelivered: number;
}

async function horizons(now: Date, policy: RawRetentionPolicy): Promise<Horizons> {
  const cutoff = retentionCutoff(now, Math.max(policy.days, MIN_RAW_RETENTION_DAYS)).getTime();
  // A destination holds nothing older than the longest hold.
  const floor = cutoff - policy.maxHoldDays * DAY_MS;
  const positions = rawPositions(await destinationPositions()).map((p) => ({ ...p, deliveredTo: new Date(Math.max(p.deliveredTo.getTime(), floor)) }));
  const { rows } = await pgPool().query<{ placed_at: Date | null }>("SELECT min(placed_at) AS placed_at FROM conversions WHERE attributed_at IS NULL");
  const waitingOrder = rows[0]?.placed_at ?? null;
  // Orders placed now look back the longest window (up to 90 days, set per campaign type), and
  // those still waiting look back from when they were placed; a day more for orders placed late.
  const window = (Math.max(...Object.values(await attributionWindows())) + 1) * DAY_MS;
  const touchesFrom = [new Date(retentionCutoff(now, 0).getTime() - window), waitingOrder === null ? null : new Date(waitingOrder.getTime() - window)];
  return {
    cutoff,
    adEvents: Math.min(cutoff, earliest([...positions.filter((p) => p.type === "ad_events").map((p) => p.deliveredTo), ...touchesFrom])),
    ordersDelivered: earliest(positions.filter((p) => p.type !== "ad_events").map((p) => p.deliveredTo)),
  };
}

// A day of orders may go once none of its orders waits for attribution and every destination has
// delivered past its last attribution (attributions are written at the order's attributed_at, the
// last moment the order or its items changed, and never before the order was received).
const ORDERS_DAY_SQL = `
SELECT bool_or(attributed_at IS NULL) AS waiting, max(attributed_at) AS last_attributed
  FROM conversions WHERE received_at >= $1 AND received_at < $2`;

export interface RawRetentionResult {
  /** Partitions dropped, as `<table>_<YYYYMMDD>` names. */
  dropped: string[];
  /** Rows deleted from the default partitions. */
  deletedFromDefault: number;
  /** The first day whose raw rows are all still there, per family, after this run (null: nothing removed yet). */
  keptFrom: { adEvents: string | null; orders: string | null };
}

async function dropDay(partitions: DayPartition[], table: DayPartition["table"], day: string, dropped: string[]): Promise<boolean> {
  const partition = partitions.find((p) => p.table === table && p.day === day);
  if (partition === undefined) return true;
  if (!(await dropPartition(partition.name))) return false;
  dropped.push(partition.name);
  return true;
}

/**
 * Drops the days of ad_events, conversions and attributions that retention and every hold allow,
 * deletes such rows from the default partitions, and records where each family's raw rows now
 * start (raw_retention, read by rollups:verify).
 */
export async function dropExpiredRawDays(now: Date, policy: RawRetentionPolicy = rawRetentionPolicy()): Promise<RawRetentionResult> {
  const horizon = await horizons(now, policy);
  const partitions = (await dayPartitions(["ad_events", "conversions", "attributions"])).filter((p) => p.day !== null);
  const dropped: string[] = [];

  for (const partition of partitions.filter((p) => p.table === "ad_events")) {
    if (Date.parse(`${partition.day}T00:00:00Z`) + DAY_MS <= horizon.adEvents) await dropDay(partitions, "ad_events", partition.day!, dropped);
  }
  const orderDays = new Set(partitions.filter((p) => p.table !== "ad_events").map((p) => p.day!));
  for (const day of [...orderDays].sort()) {
    const start = Date.parse(`${day}T00:00:00Z`);
    if (start + DAY_MS > Math.min(horizon.cutoff, horizon.ordersDelivered)) continue;
    const { rows } = await pgPool().query<{ waiting: boolean | null; last_attributed: Date | null }>(ORDERS_DAY_SQL, [
      new Date(start),
      new Date(start + DAY_MS),
    ]);
    const { waiting, last_attributed: last } = rows[0]!;
    if (waiting === true || (last !== null && last.getTime() > horizon.ordersDelivered)) continue;
    // Attributions first: an order is never left without its credited items while it is kept.
    if (await dropDay(partitions, "attributions", day, dropped)) await dropDay(partitions, "conversions", day, dropped);
  }

  // The default partitions hold rows of days upkeep had not made: the same rules, row by row.
  const ordersBefore = new Date(Math.min(horizon.cutoff, horizon.ordersDelivered));
  // Far in the future stands for "no destination": Postgres' infinity is not a JS Date.
  const delivered = new Date(Math.min(horizon.ordersDelivered, 8.64e15));
  const [adEvents, attributions, conversions] = await Promise.all([
    pgPool().query("DELETE FROM ad_events_default WHERE created_at < $1", [new Date(horizon.adEvents)]),
    pgPool().query("DELETE FROM attributions_default WHERE conversion_received_at < $1 AND created_at < $2", [ordersBefore, delivered]),
    pgPool().query("DELETE FROM conversions_default WHERE received_at < $1 AND attributed_at < $2", [ordersBefore, delivered]),
  ]);

  // Days from which every raw row is still there: after the last day dropped, and from the first
  // whole day at or after the horizon of any delete that removed rows.
  const lastDropped = (tables: string[]) =>
    dropped
      .map((name) => /^(\w+)_(\d{4})(\d{2})(\d{2})$/.exec(name))
      .filter((m) => m !== null && tables.includes(m[1]!))
      .map((m) => addDays(`${m![2]}-${m![3]}-${m![4]}`, 1));
  const wholeDayFrom = (moment: number) => utcDay(moment + DAY_MS - 1);
  const keptFrom = await recordKeptFrom({
    ad_events: [...lastDropped(["ad_events"]), ...((adEvents.rowCount ?? 0) > 0 ? [wholeDayFrom(horizon.adEvents)] : [])],
    conversions: [
      ...lastDropped(["conversions", "attributions"]),
      ...((attributions.rowCount ?? 0) + (conversions.rowCount ?? 0) > 0 ? [wholeDayFrom(ordersBefore.getTime())] : []),
    ],
  });
  const deletedFromDefault = (adEvents.rowCount ?? 0) + (attributions.rowCount ?? 0) + (conversions.rowCount ?? 0);
  return { dropped, deletedFromDefault, keptFrom };
}

/** Moves each table's kept_from forward to the latest of `days` (never back); returns both. */
async function recordKeptFrom(days: { ad_events: string[]; conversions: string[] }): Promise<{ adEvents: string | null; orders: string | null }> {
  for (const [table, candidates] of Object.entries(days)) {
    const latest = candidates.sort().at(-1);
    if (latest === undefined) continue;
    await pgPool().query(
      `INSERT INTO raw_retention (table_name, kept_from) VALUES ($1, $2::date)
       ON CONFLICT (table_name) DO UPDATE SET kept_from = greatest(raw_retention.kept_from, EXCLUDED.kept_from), updated_at = now()`,
      [table, latest],
    );
  }
  return rawRowsKeptFrom();
}

/** The first day whose raw rows are all still there, per family; null where retention has removed nothing. */
export async function rawRowsKeptFrom(): Promise<{ adEvents: string | null; orders: string | null }> {
  const { rows } = await pgPool().query<{ table_name: string; kept_from: string }>("SELECT table_name, kept_from::text FROM raw_retention");
  const of = (name: string) => rows.find((row) => row.table_name === name)?.kept_from ?? null;
  return { adEvents: of("ad_events"), orders: of("conversions") };
}
