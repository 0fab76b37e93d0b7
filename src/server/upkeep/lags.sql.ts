// How far behind each background job is, read from the database, for /api/metrics, /api/health
// and the dashboard. Hand-written SQL: each figure is one small query over an index (the settle
// cursors, the attribution queue's (attributed_at, received_at) index, the watermarks), so a
// scrape every few seconds costs next to nothing even with a backlog.

import sql from "sql-template-tag";
import { env } from "@/env";
import { utcDay } from "@/server/core/days";
import { isEventType } from "@/server/core/export-types";
import type { ExportType } from "@/server/db/generated/enums";
import { pgPool } from "@/server/db/pg-pool";
import { holdsOf, type RetentionHold } from "@/server/pipeline/export/job/retention-holds";
import { destinationPositions } from "@/server/pipeline/export/job/runs.sql";
import { type ReportJobQueue, reportJobQueue } from "@/server/pipeline/report/jobs/report-jobs.sql";
import { oldestUnsettled } from "@/server/pipeline/settle/settled-horizon.sql";
import { store } from "@/server/store";
import type { ShipperState } from "@/server/store/shipping";
import { dayPartitions } from "./day-partitions.sql";

/** Beacons waiting to be settled are counted up to this many; past it the figure says "at least". */
export const BACKLOG_COUNT_CAP = 1_000_000;

export interface ExportLag {
  destinationId: string;
  name: string;
  accountId: string;
  type: ExportType;
  /** How far the destination's data reaches (its watermark). */
  deliveredTo: Date | null;
  lagSeconds: number | null;
}

export interface Lags {
  /** Age of the oldest beacon or order waiting to be settled; 0 when none waits. */
  settleLagSeconds: number;
  /** Beacons and orders waiting to be settled (each counted up to BACKLOG_COUNT_CAP). */
  settleBacklog: number;
  /** Age of the oldest order waiting for attribution; 0 when none waits. */
  attributionLagSeconds: number;
  attributionBacklog: number;
  exports: ExportLag[];
  logPartitions: { count: number; bytes: number };
  /** Partitions (default ones included) and size on disk of each settled raw table. */
  rawTables: { table: "ad_events" | "conversions" | "attributions"; partitions: number; bytes: number }[];
  /** Export destinations holding raw rows past TALLY_RAW_RETENTION_DAYS until they deliver them. */
  retentionHolds: RetentionHold[];
  /** Events and orders the jobs set aside (settling: by a rule or a failure; attribution: a failure). */
  setAside: { events: number; orders: number };
  /** Orders settling set aside by each rule in the last 24 hours (every rule listed, 0 when none). */
  setAsideByRule: { rule: SettleRule; orders: number }[];
  /** The publishers whose traffic stored the most today (UTC), at most PUBLISHERS_LISTED, largest first. */
  publisherStorage: PublisherStorage[];
  /** How many publishers stored more than TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB today. */
  publishersOverStorageAlert: number;
  /** The shipper of settled rows to ClickHouse: batches waiting, the oldest one's age, rows refused; null with Postgres as the store. */
  shipper: ShipperState | null;
  /** Report jobs waiting for a worker, the oldest one's age, and those failed for good in the last day. */
  reportJobs: ReportJobQueue;
}

/** What one publisher's traffic made Tally store in a day (publisher_daily_intake). */
export interface PublisherStorage {
  publisherId: string;
  bytes: number;
  beacons: number;
  orders: number;
  setAside: number;
}

/** The rules settling sets orders aside by: a fixed label set. */
export const SETTLE_RULES = ["orders_per_session", "order_total_limit", "line_quantity_limit"] as const;
export type SettleRule = (typeof SETTLE_RULES)[number];

/** Publishers listed by size in the lags (and so in /api/metrics): a bounded label set. */
export const PUBLISHERS_LISTED = 20;

const ageSeconds = (since: Date | null, now: Date) => (since ? Math.max(0, (now.getTime() - since.getTime()) / 1000) : 0);

export async function readLags(now = new Date()): Promise<Lags> {
  const pool = pgPool();
  const storageAlertBytes = env().TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB * 1024 * 1024;
  const [shipper, oldest, backlog, attribution, positions, partitions, setAside, storage, byRule, reportJobs] = await Promise.all([
    store().shipping?.state() ?? null,
    oldestUnsettled(),
    pool.query<{ n: number }>(
      sql`SELECT (SELECT count(*) FROM (
                 SELECT 1 FROM settle_cursors c JOIN beacon_log l ON l.shard = c.shard AND (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                  LIMIT ${BACKLOG_COUNT_CAP}) AS waiting)::int
            + (SELECT count(*) FROM (
                 SELECT 1 FROM conversion_cursor c JOIN conversion_log l ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                  LIMIT ${BACKLOG_COUNT_CAP}) AS waiting)::int AS n`,
    ),
    pool.query<{ oldest: Date | null; n: number }>(sql`SELECT min(received_at) AS oldest, count(*)::int AS n FROM conversions WHERE attributed_at IS NULL`),
    destinationPositions(),
    dayPartitions(),
    pool.query<{ events: number; orders: number }>(
      sql`SELECT (SELECT count(*)::int FROM settle_set_aside) AS events,
              (SELECT count(*)::int FROM conversions WHERE attribution_failed_reason IS NOT NULL) AS orders`,
    ),
    pool.query<PublisherStorage & { over: number }>(
      sql`WITH today AS (
         SELECT publisher_id, sum(bytes)::float8 AS bytes, sum(beacons)::float8 AS beacons, sum(orders)::float8 AS orders, sum(set_aside)::float8 AS set_aside
           FROM publisher_daily_intake WHERE day = ${utcDay(now)}::date GROUP BY publisher_id)
       SELECT publisher_id AS "publisherId", bytes, beacons, orders, set_aside AS "setAside",
              (SELECT count(*)::int FROM today WHERE bytes > ${storageAlertBytes}) AS over
         FROM today ORDER BY bytes DESC, publisher_id LIMIT ${PUBLISHERS_LISTED}`,
    ),
    // settle_set_aside_set_aside_at_idx: a day of set-asides, however many were kept before it.
    pool.query<{ rule: string; n: number }>(
      sql`SELECT rule, count(*)::int AS n FROM settle_set_aside WHERE set_aside_at > ${now}::timestamptz - interval '24 hours' AND rule IS NOT NULL GROUP BY rule`,
    ),
    reportJobQueue(now),
  ]);
  const ruleCounts = new Map(byRule.rows.map((row) => [row.rule, row.n]));
  const logs = partitions.filter((p) => p.table === "beacon_log" || p.table === "conversion_log");
  const raw = (table: "ad_events" | "conversions" | "attributions") => {
    const of = partitions.filter((p) => p.table === table);
    return { table, partitions: of.length, bytes: of.reduce((sum, p) => sum + p.bytes, 0) };
  };
  return {
    settleLagSeconds: ageSeconds(oldest, now),
    settleBacklog: backlog.rows[0]!.n,
    attributionLagSeconds: ageSeconds(attribution.rows[0]!.oldest, now),
    attributionBacklog: attribution.rows[0]!.n,
    exports: positions
      .filter((position) => position.status === "active")
      .map(({ destinationId, name, accountId, type, watermark }) => ({
        destinationId,
        name,
        accountId,
        type,
        deliveredTo: watermark,
        // Events are due hourly, aggregates daily: the lag is what the data misses of now.
        lagSeconds: watermark ? ageSeconds(watermark, now) : null,
      })),
    logPartitions: { count: logs.length, bytes: logs.reduce((sum, p) => sum + p.bytes, 0) },
    rawTables: [raw("ad_events"), raw("conversions"), raw("attributions")],
    retentionHolds: holdsOf(positions, now),
    setAside: setAside.rows[0]!,
    setAsideByRule: SETTLE_RULES.map((rule) => ({ rule, orders: ruleCounts.get(rule) ?? 0 })),
    publisherStorage: storage.rows.map(({ over: _over, ...row }) => row),
    publishersOverStorageAlert: storage.rows[0]?.over ?? 0,
    shipper,
    reportJobs,
  };
}

/** A lag past which /api/health says `degraded` and an operator should look (docs/operations.md). */
export interface LagThresholds {
  settleSeconds: number;
  attributionSeconds: number;
  /** Events exports (hourly); aggregate exports are allowed a day more. */
  exportSeconds: number;
  /** Bytes one publisher's traffic may store in a UTC day. */
  publisherDailyBytes: number;
  /** Age of the oldest batch waiting to be shipped to ClickHouse. */
  shipSeconds: number;
}

/** The configured thresholds (TALLY_*_LAG_ALERT_SECONDS), shared by /api/health and the dashboard. */
export function alertThresholds(): LagThresholds {
  const config = env();
  return {
    settleSeconds: config.TALLY_SETTLE_LAG_ALERT_SECONDS,
    attributionSeconds: config.TALLY_ATTRIBUTION_LAG_ALERT_SECONDS,
    exportSeconds: config.TALLY_EXPORT_LAG_ALERT_SECONDS,
    publisherDailyBytes: config.TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB * 1024 * 1024,
    shipSeconds: config.TALLY_SHIP_LAG_ALERT_SECONDS,
  };
}

/** Which lags pass their thresholds, as short reasons; empty when all is well. */
export function lagProblems(lags: Lags, thresholds: LagThresholds = alertThresholds()): string[] {
  const problems: string[] = [];
  if (lags.settleLagSeconds > thresholds.settleSeconds) problems.push(`settle is ${Math.round(lags.settleLagSeconds)} s behind`);
  if (lags.attributionLagSeconds > thresholds.attributionSeconds) problems.push(`attribution is ${Math.round(lags.attributionLagSeconds)} s behind`);
  // Reports read ClickHouse: what waits to be shipped is missing from them.
  if (lags.shipper && lags.shipper.lagSeconds > thresholds.shipSeconds)
    problems.push(`shipping to ClickHouse is ${Math.round(lags.shipper.lagSeconds)} s behind, ${lags.shipper.waiting} batches waiting`);
  for (const lag of lags.exports) {
    const limit = thresholds.exportSeconds + (isEventType(lag.type) ? 0 : 86_400);
    if (lag.lagSeconds !== null && lag.lagSeconds > limit) problems.push(`export ${lag.name} (${lag.type}) is ${Math.round(lag.lagSeconds / 3600)} h behind`);
  }
  for (const publisher of lags.publisherStorage) {
    if (publisher.bytes > thresholds.publisherDailyBytes) {
      const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));
      problems.push(`publisher ${publisher.publisherId} stored ${mb(publisher.bytes)} MB today (alert past ${mb(thresholds.publisherDailyBytes)} MB)`);
    }
  }
  return problems;
}
