// Prometheus metrics (prom-client), one registry per process: each web, collector and worker
// process serves its own request counts and group-commit queues, and any of them serves the
// database-wide figures (lags, backlogs, partitions), read at scrape time. What to alert on is
// in docs/operations.md.
import { Gauge, Registry } from "prom-client";
import { reportZoneCount } from "@/server/accounts/account-time-zone";
import { allCounters } from "@/server/core/counters";
import { beaconWriterDepth } from "@/server/pipeline/accept/beacons/record-beacon";
import { conversionWriterDepth } from "@/server/pipeline/accept/conversions/record-conversion";
import { store } from "@/server/store";
import { unknownReportZones } from "@/server/store/unknown-zones.sql";
import { type Lags, readLags } from "./lags.sql";

const holder = globalThis as unknown as { tallyMetrics?: ReturnType<typeof createMetrics> };

// Over 80 lines on purpose: every metric Tally serves is registered here, in one list an operator can read.
function createMetrics() {
  const registry = new Registry();
  // What happened, counted where it happens (src/server/core/counters.ts).
  for (const counter of allCounters()) registry.registerMetric(counter);
  new Gauge({
    name: "tally_write_queue_depth",
    help: "Items waiting in this process for a group commit, by writer (beacons: events; conversions: bytes).",
    labelNames: ["writer"] as const,
    registers: [registry],
    collect() {
      this.set({ writer: "beacons" }, beaconWriterDepth());
      this.set({ writer: "conversions" }, conversionWriterDepth());
    },
  });
  // One read of the database per scrape (metricsText starts it) serves every gauge below.
  const scrape: { lags: Promise<Lags> | null } = { lags: null };
  const lags = () => {
    scrape.lags ??= readLags();
    return scrape.lags;
  };
  const gauge = (name: string, help: string, read: (l: Lags) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(read(await lags()));
      },
    });
  gauge("tally_settle_lag_seconds", "Age of the oldest accepted beacon or order not yet settled (0 when none waits).", (l) => l.settleLagSeconds);
  gauge("tally_settle_backlog_events", "Accepted beacons and orders waiting to be settled (each counted up to 1,000,000).", (l) => l.settleBacklog);
  gauge("tally_attribution_lag_seconds", "Age of the oldest order waiting for attribution (0 when none waits).", (l) => l.attributionLagSeconds);
  gauge("tally_attribution_backlog_orders", "Orders waiting for attribution.", (l) => l.attributionBacklog);
  gauge("tally_report_jobs_lag_seconds", "Age of the oldest report job waiting for a worker (0 when none waits).", (l) => l.reportJobs.lagSeconds);
  gauge("tally_report_jobs_waiting", "Report jobs queued, those waiting out a pause after a failed attempt included.", (l) => l.reportJobs.waiting);
  gauge("tally_report_jobs_failed_last_day", "Report jobs failed for good (attempts spent) in the last 24 hours.", (l) => l.reportJobs.failedLastDay);
  // With ClickHouse as the store only (a process's store never changes): reports miss what waits to be shipped.
  if (store().shipping) {
    const shipper = (name: string, help: string, read: (state: NonNullable<Lags["shipper"]>) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          const state = (await lags()).shipper;
          if (state) this.set(read(state));
        },
      });
    shipper("tally_ship_lag_seconds", "Age of the oldest settled batch not yet shipped to ClickHouse (0 when none waits).", (s) => s.lagSeconds);
    shipper("tally_ship_waiting_batches", "Settled batches waiting to be shipped to ClickHouse.", (s) => s.waiting);
    shipper("tally_ship_set_aside_rows", "Settled rows ClickHouse refused, set aside (clickhouse_set_aside), over all time.", (s) => s.setAside);
  }
  gauge("tally_log_partitions", "Partitions of the logs of accepted beacons and orders, the default ones included.", (l) => l.logPartitions.count);
  gauge("tally_log_bytes", "Size of the logs of accepted beacons and orders on disk, indexes included.", (l) => l.logPartitions.bytes);
  gauge("tally_set_aside_events", "Accepted beacons and orders set aside because their own data could not be settled.", (l) => l.setAside.events);
  gauge("tally_set_aside_orders", "Orders set aside because their own data could not be attributed.", (l) => l.setAside.orders);
  new Gauge({
    name: "tally_report_zones",
    help: "Time zones the report tables are kept in, UTC included; each adds its rows to every write (TALLY_REPORT_ZONES_MAX caps it).",
    registers: [registry],
    async collect() {
      this.set(await reportZoneCount());
    },
  });
  new Gauge({
    name: "tally_orders_set_aside_by_rule",
    help: "Orders settling set aside by a rule in the last 24 hours: orders_per_session, order_total_limit, line_quantity_limit.",
    labelNames: ["rule"] as const,
    registers: [registry],
    async collect() {
      for (const { rule, orders } of (await lags()).setAsideByRule) this.set({ rule }, orders);
    },
  });
  for (const [name, help, read] of [
    ["tally_raw_partitions", "Day partitions of the settled raw tables (ad_events, conversions, attributions), the default ones included.", "partitions"],
    ["tally_raw_bytes", "Size on disk of each settled raw table, indexes included.", "bytes"],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ["table"] as const,
      registers: [registry],
      async collect() {
        for (const raw of (await lags()).rawTables) this.set({ table: raw.table }, raw[read]);
      },
    });
  }
  new Gauge({
    name: "tally_report_zone_unknown",
    help: "Kept time zones Postgres's tz database does not know (1 each): their report rows are no longer kept and their reports are refused; UTC and the other zones go on (docs/operations.md).",
    labelNames: ["zone"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { zone } of await unknownReportZones()) this.set({ zone }, 1);
    },
  });
  new Gauge({
    name: "tally_report_zone_days_behind",
    help: "For each kept time zone, UTC days of raw rows still held that its report rows do not cover yet (grain days: the daily tables, hours: the hourly ones); upkeep moves them back.",
    labelNames: ["zone", "grain"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const behind of await store().rollups.zoneBackfill.behind()) this.set({ zone: behind.zone, grain: behind.grain }, behind.daysBehind);
    },
  });
  gauge(
    "tally_publishers_over_storage_alert",
    "Publishers whose traffic stored more than TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB today (UTC).",
    (l) => l.publishersOverStorageAlert,
  );
  new Gauge({
    name: "tally_publisher_stored_bytes_today",
    help: "What the traffic of the publishers that stored the most today (UTC, at most 20) made Tally store, in bytes.",
    labelNames: ["publisher"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const publisher of (await lags()).publisherStorage) this.set({ publisher: publisher.publisherId }, publisher.bytes);
    },
  });
  new Gauge({
    name: "tally_retention_held_seconds",
    help: "For each export destination holding raw rows past TALLY_RAW_RETENTION_DAYS: how far back its delivered data ends.",
    labelNames: ["destination", "type"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      for (const hold of (await lags()).retentionHolds)
        this.set({ destination: hold.destinationId, type: hold.type }, (now - hold.deliveredTo.getTime()) / 1000);
    },
  });
  new Gauge({
    name: "tally_export_lag_seconds",
    help: "How far each active export destination's data is behind now, by destination and type (from its watermark).",
    labelNames: ["destination", "type"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const lag of (await lags()).exports) if (lag.lagSeconds !== null) this.set({ destination: lag.destinationId, type: lag.type }, lag.lagSeconds);
    },
  });
  return { registry, scrape };
}

function metrics() {
  holder.tallyMetrics ??= createMetrics();
  return holder.tallyMetrics;
}

/** The Prometheus text exposition of this process's registry. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  const { registry, scrape } = metrics();
  scrape.lags = null;
  try {
    return { contentType: registry.contentType, body: await registry.metrics() };
  } finally {
    scrape.lags = null;
  }
}
