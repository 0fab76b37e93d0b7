import sql from "sql-template-tag";
import { addDays, DAY_MS, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { TOKEN_SPAN_SECONDS } from "@/server/pipeline/accept/beacons/beacon-token";
import { longestWindowDays } from "@/server/pipeline/attribute/attribution-windows";
import {
  MIN_RAW_RETENTION_DAYS,
  type RawRetentionPolicy,
  rawPositions,
  rawRetentionPolicy,
  retentionCutoff,
  typesHeldInPostgres,
} from "@/server/pipeline/export/job/retention-holds";
import { destinationPositions } from "@/server/pipeline/export/job/runs.sql";
import { store } from "@/server/store";
import { type DayPartition, dayPartitions, dropPartition } from "./day-partitions.sql";

const earliest = (moments: (Date | null | undefined)[]): number =>
  Math.min(Number.POSITIVE_INFINITY, ...moments.filter((m): m is Date => m instanceof Date).map((m) => m.getTime()));

/** Days settling looks back on ad events for a token's earlier beacons (its whole life), and a day. */
const TOKEN_LOOK_BACK_DAYS = Math.ceil(Math.max(...Object.values(TOKEN_SPAN_SECONDS)) / 86_400) + 1;

interface Horizons {
  /** The start of the first day retention alone keeps. */
  cutoff: number;
  /** ad_events before this instant may go: the cutoff, or earlier where exports or attribution still need them. */
  adEvents: number;
  /** Orders (and their items) last changed before this instant are delivered to every destination. */
  ordersDelivered: number;
  /** Orders and their attributions received before this instant may go, as far as retention, holds and the shipper go. */
  orders: number;
}

async function horizons(now: Date, policy: RawRetentionPolicy): Promise<Horizons> {
  const cutoff = retentionCutoff(now, Math.max(policy.days, MIN_RAW_RETENTION_DAYS)).getTime();
  // A destination holds nothing older than the longest hold, and only what it exports from Postgres.
  const floor = cutoff - policy.maxHoldDays * DAY_MS;
  const held = typesHeldInPostgres(policy);
  const positions = rawPositions(await destinationPositions())
    .filter((p) => held.includes(p.type))
    .map((p) => ({ ...p, deliveredTo: new Date(Math.max(p.deliveredTo.getTime(), floor)) }));
  const { rows } = await pgPool().query<{ placed_at: Date | null }>(sql`SELECT min(placed_at) AS placed_at FROM conversions WHERE attributed_at IS NULL`);
  const waitingOrder = rows[0]?.placed_at ?? null;
  // Orders placed now look back the longest window (up to 90 days: a campaign type's or a
  // campaign's own, click or view), and those still waiting look back from when they were placed;
  // a day more for orders placed late.
  const window = ((await longestWindowDays()) + 1) * DAY_MS;
  const touchesFrom = [new Date(retentionCutoff(now, 0).getTime() - window), waitingOrder === null ? null : new Date(waitingOrder.getTime() - window)];
  const ordersDelivered = earliest(positions.filter((p) => p.type !== "ad_events").map((p) => p.deliveredTo));
  // With ClickHouse as the store, nothing goes before the shipper has sent it, whatever the policy.
  const shipping = store().shipping;
  const [eventsUnshipped, attributionsUnshipped] = shipping
    ? await Promise.all([shipping.unshippedSince("ad_events"), shipping.unshippedSince("attributions")])
    : [null, null];
  const orders = Math.min(cutoff, ordersDelivered, earliest([attributionsUnshipped]));
  if (!policy.clickhouse) {
    const exported = positions.filter((p) => p.type === "ad_events").map((p) => p.deliveredTo);
    return { cutoff, adEvents: Math.min(cutoff, earliest([...exported, ...touchesFrom, eventsUnshipped])), ordersDelivered, orders };
  }
  // ClickHouse keeps the settled rows for reports and the exports of events and credited items:
  // Postgres keeps ad events only for attribution's window and a token's life.
  return { cutoff, adEvents: earliest([retentionCutoff(now, TOKEN_LOOK_BACK_DAYS), ...touchesFrom, eventsUnshipped]), ordersDelivered, orders };
}

// A day of orders may go once none of its orders waits for attribution and every destination has
// delivered past its last attribution (attributions are written at the order's attributed_at, the
// last moment the order or its items changed, and never before the order was received).
const ordersDay = (start: Date, end: Date) => sql`
SELECT bool_or(attributed_at IS NULL) AS waiting, max(attributed_at) AS last_attributed
  FROM conversions WHERE received_at >= ${start} AND received_at < ${end}`;

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
 * start (raw_retention, read by rollups:verify). With ClickHouse as the store, a day holding a row
 * not yet shipped is never dropped, whatever the policy.
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
    if (start + DAY_MS > horizon.orders) continue;
    const { rows } = await pgPool().query<{ waiting: boolean | null; last_attributed: Date | null }>(ordersDay(new Date(start), new Date(start + DAY_MS)));
    const { waiting, last_attributed: last } = rows[0]!;
    if (waiting === true || (last !== null && last.getTime() > horizon.ordersDelivered)) continue;
    // Attributions first: an order is never left without its credited items while it is kept.
    if (await dropDay(partitions, "attributions", day, dropped)) await dropDay(partitions, "conversions", day, dropped);
  }

  // The default partitions hold rows of days upkeep had not made: the same rules, row by row.
  const ordersBefore = new Date(horizon.orders);
  // Far in the future stands for "no destination": Postgres' infinity is not a JS Date.
  const delivered = new Date(Math.min(horizon.ordersDelivered, 8.64e15));
  const [adEvents, attributions, conversions] = await Promise.all([
    pgPool().query(sql`DELETE FROM ad_events_default WHERE created_at < ${new Date(horizon.adEvents)}`),
    pgPool().query(sql`DELETE FROM attributions_default WHERE conversion_received_at < ${ordersBefore} AND created_at < ${delivered}`),
    pgPool().query(sql`DELETE FROM conversions_default WHERE received_at < ${ordersBefore} AND attributed_at < ${delivered}`),
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
  // A click older than the ad events kept can no longer be credited: its mark of having converted
  // goes with it (indexed by the click's time, so this reads only what it deletes).
  await pgPool().query(sql`DELETE FROM converted_clicks WHERE event_created_at < ${new Date(horizon.adEvents)}`);
  // The outbox forgets what it shipped of days Postgres no longer keeps: it grows with the days
  // kept, not with history.
  await store().shipping?.forgetShipped(new Date(Math.min(horizon.adEvents, horizon.orders)));
  return { dropped, deletedFromDefault, keptFrom };
}

/** Moves each table's kept_from forward to the latest of `days` (never back); returns both. */
async function recordKeptFrom(days: { ad_events: string[]; conversions: string[] }): Promise<{ adEvents: string | null; orders: string | null }> {
  for (const [table, candidates] of Object.entries(days)) {
    const latest = candidates.sort().at(-1);
    if (latest === undefined) continue;
    await pgPool().query(
      sql`INSERT INTO raw_retention (table_name, kept_from) VALUES (${table}, ${latest}::date)
          ON CONFLICT (table_name) DO UPDATE SET kept_from = greatest(raw_retention.kept_from, EXCLUDED.kept_from), updated_at = now()`,
    );
  }
  return store().rollups.rawRowsKeptFrom();
}
