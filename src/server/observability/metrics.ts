// Prometheus metrics (prom-client), one registry per process: each web, collector and worker
// process serves its own request counts and group-commit queues, and any of them serves the
// database-wide figures (lags, backlogs, partitions), read at scrape time. What to alert on is
// in docs/operations.md.
import { Counter, Gauge, Registry } from "prom-client";
import { conversionWriterDepth } from "@/server/conversions/record-conversion";
import { beaconWriterDepth } from "@/server/ingest/record-beacon";
import { type Lags, readLags } from "./lags.sql";
import { orderProofCounter } from "./order-proofs";
import { stepFailureCounter } from "./step-failures";

const holder = globalThis as unknown as { tallyMetrics?: ReturnType<typeof createMetrics> };

/** The sign-in limits (src/server/accounts/sign-in-limits.ts), as a refusal is counted. */
export type SignInLimit = "address" | "backoff" | "new_address";

/** The /v1 routes, as counted: a fixed set, so a scanner's paths cannot grow the label set. */
export type CountedRoute = "ads" | "beacon" | "conversion" | "other";

/** The /v1 rate limits (src/server/http/rate-limits.ts), as counted. */
export type V1Limit = "address" | "publisher" | "publisher_address" | "api_key";
/** Why a report request was refused before any report was read (docs/operations.md, "Report route limits"). */
export type ReportRefusal = "rate" | "key_downloads" | "account_downloads";
/** Why a running download was cut. */
export type DownloadCut = "stalled" | "too_long";

function createMetrics() {
  const registry = new Registry();
  registry.registerMetric(stepFailureCounter());
  registry.registerMetric(orderProofCounter());
  const requests = new Counter({
    name: "tally_v1_requests_total",
    help: "Requests to the /v1 routes by route and outcome: accepted (2xx), refused (4xx), unavailable (503), failed (other 5xx).",
    labelNames: ["route", "outcome"] as const,
    registers: [registry],
  });
  const limitRefusals = new Counter({
    name: "tally_v1_limit_refusals_total",
    help: "/v1 requests answered 429 by this process, by the limit that refused them: address, publisher, publisher_address, api_key.",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  const lightAdmissions = new Counter({
    name: "tally_v1_limit_light_admissions_total",
    help: "/v1 requests admitted while their publisher's limit was spent, because their address had made few requests for that publisher.",
    registers: [registry],
  });
  const limitLeases = new Counter({
    name: "tally_v1_limit_leases_total",
    help: "Statements that took shares of the shared /v1 limits from Postgres, by outcome (taken, failed).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const limitLeaseKeys = new Counter({
    name: "tally_v1_limit_lease_keys_total",
    help: "Keys (addresses, publishers, ...) the lease statements asked Postgres for, by outcome (taken, failed).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const reportRefusals = new Counter({
    name: "tally_report_requests_refused_total",
    help: "Report requests answered 429 by reason: rate (requests per key or person), key_downloads (downloads running on the key or person), account_downloads (the account's share of download connections).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const downloadsCut = new Counter({
    name: "tally_report_downloads_cut_total",
    help: "XLSX downloads cut by this process, their database connection given back: stalled (the client took nothing for TALLY_REPORT_DOWNLOAD_STALL_SECONDS), too_long (past TALLY_REPORT_DOWNLOAD_MAX_SECONDS).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  for (const reason of ["rate", "key_downloads", "account_downloads"] satisfies ReportRefusal[]) reportRefusals.inc({ reason }, 0);
  for (const reason of ["stalled", "too_long"] satisfies DownloadCut[]) downloadsCut.inc({ reason }, 0);
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
  gauge("tally_log_partitions", "Partitions of the logs of accepted beacons and orders, the default ones included.", (l) => l.logPartitions.count);
  gauge("tally_log_bytes", "Size of the logs of accepted beacons and orders on disk, indexes included.", (l) => l.logPartitions.bytes);
  gauge("tally_set_aside_events", "Accepted beacons and orders set aside because their own data could not be settled.", (l) => l.setAside.events);
  gauge("tally_set_aside_orders", "Orders set aside because their own data could not be attributed.", (l) => l.setAside.orders);
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
  const signInRefusals = new Counter({
    name: "tally_sign_in_refusals_total",
    help: "Sign-in attempts refused (429) before the password was checked, by limit: address, backoff (one e-mail from one address), new_address (an e-mail guessed from many addresses).",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  return { registry, requests, limitRefusals, lightAdmissions, limitLeases, limitLeaseKeys, signInRefusals, reportRefusals, downloadsCut, scrape };
}

function metrics() {
  holder.tallyMetrics ??= createMetrics();
  return holder.tallyMetrics;
}

export function countRequest(route: CountedRoute, status: number): void {
  const outcome = status < 400 ? "accepted" : status < 500 ? "refused" : status === 503 ? "unavailable" : "failed";
  metrics().requests.inc({ route, outcome });
}

/** A /v1 request answered 429 by `limit`. */
export function countLimitRefusal(limit: V1Limit): void {
  metrics().limitRefusals.inc({ limit });
}

/** A /v1 request let in past its publisher's spent limit, its address being light on that publisher. */
export function countLightAdmission(): void {
  metrics().lightAdmissions.inc();
}

/** A lease statement of the shared limits, and the keys it asked for. */
export function countLimitLease(outcome: "taken" | "failed", keys: number): void {
  metrics().limitLeases.inc({ outcome });
  metrics().limitLeaseKeys.inc({ outcome }, keys);
}

/** A sign-in refused (429) before its password was checked, by the limit that refused it. */
export function countSignInRefusal(limit: SignInLimit): void {
  metrics().signInRefusals.inc({ limit });
}

export function countReportRefusal(reason: ReportRefusal): void {
  metrics().reportRefusals.inc({ reason });
}

export function countDownloadCut(reason: DownloadCut): void {
  metrics().downloadsCut.inc({ reason });
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
