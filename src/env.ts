// One file over 300 lines on purpose: every setting Tally reads, in one schema checked at start.
// The one place that reads process.env. Every variable is checked at start; a problem stops the
// process with one line per variable, never a stack trace from deep inside a request.
import { z } from "zod";
import { canonicalZone } from "@/server/core/time-zones";

const postgresUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === "postgresql:" || url.protocol === "postgres:") && url.hostname !== "";
  } catch {
    return false;
  }
}, "must be a postgresql://user:password@host:port/database URL");

const clickhouseUrl = z.string().refine((value) => {
  if (/^chdb:.+/.test(value)) return true;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}, "must be an https://user:password@host:port/database URL, or chdb:<folder> for an in-process ClickHouse");

/** `kid:secret,kid:secret`: the first key signs new beacon tokens, every listed key verifies. */
const signingKeys = z.string().transform((value, ctx) => {
  const keys = value
    .split(",")
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(":");
      return { id: pair.slice(0, at), secret: pair.slice(at + 1) };
    });
  for (const key of keys) {
    if (!/^[A-Za-z0-9_-]{1,16}$/.test(key.id) || key.secret.length < 32) {
      ctx.addIssue({
        code: "custom",
        message: "must be kid:secret pairs separated by commas, each kid 1-16 of [A-Za-z0-9_-], each secret at least 32 characters",
      });
      return z.NEVER;
    }
  }
  if (keys.length === 0 || new Set(keys.map((k) => k.id)).size !== keys.length) {
    ctx.addIssue({ code: "custom", message: "must list at least one key, each kid once" });
    return z.NEVER;
  }
  return keys;
});

// A fixed key for development and tests only, used only when NODE_ENV says so (see below).
const DEVELOPMENT_SIGNING_KEYS = "dev:tally-development-beacon-key-not-a-secret";

/** 32 bytes, base64 (or base64url). */
const secretsKey = z.string().transform((value, ctx) => {
  const key = Buffer.from(value, "base64");
  if (key.length !== 32) {
    ctx.addIssue({ code: "custom", message: "must be 32 bytes written in base64 (openssl rand -base64 32)" });
    return z.NEVER;
  }
  return key;
});
// Development and tests only, like DEVELOPMENT_SIGNING_KEYS: secrets stored with it are not secret.
const DEVELOPMENT_SECRETS_KEY = Buffer.from("tally-development-secrets-key-32").toString("base64");

const serverSchema = z
  .object({
    /**
     * No default: the public development keys below are used only when this says "development"
     * (next dev, `npm run dev`) or "test" (Vitest). Unset, as for a CLI or the collector started by
     * hand, counts as production.
     */
    NODE_ENV: z.enum(["development", "test", "production"]).optional(),
    DATABASE_URL: postgresUrl,
    /** Connections per process; the collector and the app each hold a pool. */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    /** Connections per process for report downloads and export batches, apart from the requests' pool. */
    DATABASE_BULK_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(3),
    /** Longest statement, and longest idle open transaction, on the requests' connections. */
    DATABASE_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    /** The same for downloads, exports and recounts, which read many rows. */
    DATABASE_BULK_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    /** Where the dev launcher keeps the embedded Postgres and local S3 data. */
    TALLY_DATA_DIR: z.string().min(1).default(".data"),
    /** Port of the embedded Postgres that `npm run dev` starts when DATABASE_URL is unset. */
    TALLY_EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
    /** Port of the local S3 (s3rver) that `npm run dev` starts for the demo export destination. */
    TALLY_LOCAL_S3_PORT: z.coerce.number().int().min(1024).max(65535).default(54330),
    /** Port of `npm run collector`, the standalone events host. */
    COLLECTOR_PORT: z.coerce.number().int().min(1).max(65535).default(3001),
    /** Enables the benchmarks' baseline routes (`/api/bench/*`); off everywhere else. */
    TALLY_BENCH_ROUTES: z
      .enum(["0", "1"])
      .default("0")
      .transform((value) => value === "1"),
    /** HMAC keys of the beacon tokens (`kid:secret,...`, newest first). Required unless NODE_ENV is development or test. */
    BEACON_SIGNING_KEYS: signingKeys.optional(),
    /** Public origin of the events host, used in beacon addresses; defaults to the request's origin. */
    TALLY_EVENTS_URL: z
      .url({ protocol: /^https?$/ })
      .transform((url) => url.replace(/\/+$/, ""))
      .optional(),
    /**
     * Seconds between runs of the attribution loop inside a long-running server (next dev, next
     * start); 0 turns it off. Serverless deployments (Vercel sets VERCEL=1) run the cron route
     * instead, so there the default is 0.
     */
    TALLY_ATTRIBUTION_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(3600).optional(),
    /**
     * Seconds between settle runs (accepted beacons decided, billed and written to the reports)
     * inside a long-running server or `npm run worker`; 0 turns it off, for a web tier whose
     * workers run apart. Serverless deployments run GET /api/cron/settle instead (default 0 there).
     */
    TALLY_SETTLE_INTERVAL_SECONDS: z.coerce.number().min(0).max(3600).optional(),
    /** Level of the structured (JSON) server logs. */
    TALLY_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** Bearer token of GET /api/metrics (and the collector's /metrics); without one nobody may read them. */
    TALLY_METRICS_TOKEN: z.string().min(16).optional(),
    /** Lags past which /api/health says `degraded` (docs/operations.md, "What to alert on"). */
    TALLY_SETTLE_LAG_ALERT_SECONDS: z.coerce.number().int().min(1).default(60),
    TALLY_ATTRIBUTION_LAG_ALERT_SECONDS: z.coerce.number().int().min(1).default(900),
    /** With ClickHouse as the store: the age of the oldest settled batch not yet shipped past which health says `degraded`. */
    TALLY_SHIP_LAG_ALERT_SECONDS: z.coerce.number().int().min(1).default(60),
    TALLY_EXPORT_LAG_ALERT_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .default(3 * 3600),
    /** Days a settled day of the beacon log is kept before its partition is dropped (docs/operations.md). */
    TALLY_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(2),
    /**
     * Days of settled raw rows (ad_events, conversions, attributions) kept in Postgres; reports run
     * from the rollups, and every export destination holds the days it has not delivered.
     * At least 31 (the order de-duplication window and a day).
     */
    /**
     * Where settled events, rollups and report reads live besides Postgres (src/server/store/):
     * unset, everything stays in Postgres; set, in ClickHouse (docs/operations.md, "ClickHouse").
     * `https://user:password@host:8443/database` (the HTTP interface, ClickHouse Cloud or a
     * server of one's own), or `chdb:<folder>` for an in-process ClickHouse (development, tests).
     */
    CLICKHOUSE_URL: clickhouseUrl.optional(),
    /** A cluster name from the servers' configuration: Replicated tables ON CLUSTER, Distributed tables for reads and writes. */
    CLICKHOUSE_CLUSTER: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be a cluster name of letters, digits and _")
      .optional(),
    /** Days ClickHouse keeps settled events and attributions (a TTL, applied at start); 0 keeps them for good. */
    CLICKHOUSE_TTL_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
    /** Inserts each ClickHouse table remembers the token of, so a batch sent again within them counts once. */
    CLICKHOUSE_DEDUPLICATION_WINDOW: z.coerce.number().int().min(100).max(1_000_000).default(10_000),
    /** Settled batches one shipper run sends to ClickHouse at most (each bounded in rows by the batch that made it). */
    CLICKHOUSE_SHIP_BATCHES_PER_RUN: z.coerce.number().int().min(1).max(10_000).default(200),
    /** Seconds a shipper holds the batches it took before another may take them again. */
    CLICKHOUSE_SHIP_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
    TALLY_RAW_RETENTION_DAYS: z.coerce.number().int().min(31).max(3650).default(90),
    /**
     * Days past TALLY_RAW_RETENTION_DAYS that an export destination behind (failing, needing
     * attention) may hold raw rows it has not delivered; older rows go even undelivered.
     */
    TALLY_RAW_HOLD_MAX_DAYS: z.coerce.number().int().min(0).max(3650).default(60),
    VERCEL: z.string().optional(),
    /** Bearer secret of the cron routes (`/api/cron/*`); Vercel Cron sends it. */
    CRON_SECRET: z.string().min(16).optional(),
    /** AES-256-GCM key of export destinations' stored secrets: 32 bytes, base64. Required unless NODE_ENV is development or test. */
    TALLY_SECRETS_KEY: secretsKey.optional(),
    /**
     * Seconds between runs of the export job inside a long-running server; 0 turns it off.
     * Serverless deployments run GET /api/cron/export from Vercel Cron instead (default 0 there).
     */
    TALLY_EXPORT_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(86_400).optional(),
    /**
     * Proxies in front of Tally that append the client's address to X-Forwarded-For (a load
     * balancer, nginx): the client is that many entries from the right. 0 (the default): the
     * connection's own address, which the collector has and Tally's Next.js server (`npm start`,
     * src/cli/serve-next.ts) hands its routes; a Next.js started otherwise then knows no address.
     * On Vercel (VERCEL=1) the address Vercel writes into X-Forwarded-For, whatever this says
     * (docs/ingest.md, "Client addresses").
     */
    TALLY_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /** /v1 requests per second one client address may make (10 s windows, shared by every process); 0: no limit. */
    TALLY_V1_RATE_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(200),
    /**
     * /v1 requests per second for one publisher's anonymous traffic (10 s windows, shared by every
     * process); 0: no limit. Once spent, only addresses light on that publisher are still let in
     * (TALLY_V1_LIGHT_ADDRESS_REQUESTS), so strangers cannot lock out its shoppers.
     */
    TALLY_V1_RATE_PER_PUBLISHER: z.coerce.number().int().min(0).max(10_000_000).default(5_000),
    /** /v1 requests per second one client address may make for one publisher (10 s windows, shared); 0: no limit. */
    TALLY_V1_RATE_PER_PUBLISHER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(100),
    /**
     * Requests one address may still make for a publisher in a 10 s window while that publisher's
     * own limit is spent (counted by each process): a shopper's pages stay served, a flood's
     * addresses do not. 0: none once it is spent.
     */
    TALLY_V1_LIGHT_ADDRESS_REQUESTS: z.coerce.number().int().min(0).max(1_000_000).default(50),
    /** Requests per second made with one API key (publishers' server-to-server calls; 10 s windows, shared); 0: no limit. */
    TALLY_V1_RATE_PER_API_KEY: z.coerce.number().int().min(0).max(10_000_000).default(1_000),
    /** Clicks one client address may make in a minute before further ones are invalid traffic (click_velocity). */
    TALLY_CLICKS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(30),
    /**
     * Statement timeout of one pipeline batch (a settle stretch, an attribution batch); its parts
     * get their share of it when a batch is split around an item that fails (docs/operations.md).
     */
    TALLY_STEP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
    /** Largest order kept, as stored (its lines and fields as JSON); a larger one is refused with a 422. */
    TALLY_ORDER_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(4096)
      .max(256 * 1024)
      .default(128 * 1024),
    /** Orders one shopper's session may place with one publisher in 24 hours; later ones are set aside, not attributed. */
    TALLY_ORDERS_PER_SESSION_PER_DAY: z.coerce.number().int().min(1).max(100_000).default(20),
    /**
     * The largest order total (currency units, the sum of promotional_price × quantity) settling
     * keeps for a publisher without a limit of its own; a larger order is set aside
     * (order_total_limit). Retail orders stay far below it; the schema alone allows 5 × 10^12.
     */
    TALLY_MAX_ORDER_TOTAL: z.coerce.number().min(0.000001).max(5_000_000_000_000).default(100_000),
    /** The largest quantity of one order line settling keeps for a publisher without a limit of its own (line_quantity_limit). */
    TALLY_MAX_LINE_QUANTITY: z.coerce.number().min(0.000001).max(10_000).default(1_000),
    /**
     * Hours a publisher's previous signing secret still verifies order tokens after it is rotated:
     * time for every server of the publisher to switch to the new one.
     */
    TALLY_SIGNING_SECRET_GRACE_HOURS: z.coerce.number().int().min(0).max(720).default(72),
    /** Beacons one beacon address (one kind of one served ad) may bring in an hour, per events process; past it 429. */
    TALLY_BEACONS_PER_TOKEN_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(20),
    /** Beacons one session may bring in an hour, per events process; past it 429. */
    TALLY_BEACONS_PER_SESSION_PER_HOUR: z.coerce.number().int().min(1).max(10_000_000).default(3_000),
    /**
     * Days a shopper's last purchase of a brand keeps a later order's line of that brand from being
     * new-to-brand (docs/reports.md, "New-to-brand"); brand_purchases keeps rows this long.
     */
    TALLY_NEW_TO_BRAND_DAYS: z.coerce.number().int().min(1).max(730).default(365),
    /** Days the records of set-aside beacons and orders (and orders set aside by attribution) are kept. */
    TALLY_SET_ASIDE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Bytes one publisher's traffic may add in a UTC day before /api/health says degraded and the alert metric fires (MiB). */
    TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB: z.coerce.number().int().min(1).max(10_000_000).default(1024),
    /**
     * The daily ceilings on what strangers can make Tally store for one publisher (per UTC day,
     * shared by every process; src/server/pipeline/accept/intake-ceiling.ts): orders sent without
     * the publisher's API key or a verifying order_token, and beacons. Past either the count or
     * the MiB (as stored), 429 until the next UTC day. Several times the storage alert
     * (TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB), so the alert warns first. 0: no ceiling.
     */
    TALLY_UNPROVEN_ORDERS_PER_PUBLISHER_DAY: z.coerce.number().int().min(0).max(2_000_000_000).default(1_000_000),
    TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY: z.coerce.number().int().min(0).max(2_000_000).default(2048),
    TALLY_BEACONS_PER_PUBLISHER_DAY: z.coerce.number().int().min(0).max(2_000_000_000).default(20_000_000),
    TALLY_BEACON_MB_PER_PUBLISHER_DAY: z.coerce.number().int().min(0).max(2_000_000).default(8192),
    /** Sign-in attempts per client address in 15 minutes, whatever the e-mails (shared by every process). */
    TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
    /** Wrong passwords in a row for one e-mail from one client address before its back-off starts. */
    TALLY_SIGN_IN_FREE_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
    /** The first back-off of an e-mail from an address, in seconds; each further wrong password doubles it. */
    TALLY_SIGN_IN_BACKOFF_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
    /** The longest back-off, in seconds. */
    TALLY_SIGN_IN_BACKOFF_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    /**
     * Wrong passwords for one e-mail from every address together in 15 minutes past which
     * addresses the e-mail has not signed in from lately are slowed (TALLY_SIGN_IN_NEW_ADDRESS_ATTEMPTS_PER_MINUTE).
     */
    TALLY_SIGN_IN_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).max(1_000_000).default(20),
    /** Then, sign-in attempts a minute for that e-mail from all such addresses together; addresses it signed in from are not slowed. */
    TALLY_SIGN_IN_NEW_ADDRESS_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(6),
    /**
     * Report requests (pages and downloads) per second one API key, or one signed-in person, may
     * make; counted in Postgres, so shared by every process. 0: no limit.
     */
    TALLY_REPORT_RATE_PER_SECOND: z.coerce.number().int().min(0).max(100_000).default(10),
    /** Report requests past that rate one caller may make in any 10 s (a burst). */
    TALLY_REPORT_RATE_BURST: z.coerce.number().int().min(0).max(1_000_000).default(20),
    /**
     * Limits of POST /oauth/token, counted in Postgres and shared by every process
     * (src/server/accounts/oauth-token-limits.ts). Requests a minute per client that prove its
     * secret (a stranger's wrong secret never counts here).
     */
    TALLY_OAUTH_TOKEN_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(20),
    /** Wrong secrets for one client from one source address in 15 minutes; then that source alone is refused. */
    TALLY_OAUTH_TOKEN_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(5),
    /** Wrong secrets for one client from everywhere in 15 minutes; past it, sources that failed are refused. */
    TALLY_OAUTH_TOKEN_FAILURES_PER_CLIENT: z.coerce.number().int().min(1).max(1_000_000).default(100),
    /** XLSX downloads one API key, or one signed-in person, may run at once, in every process together. */
    TALLY_REPORT_DOWNLOADS_PER_KEY: z.coerce.number().int().min(1).max(50).default(2),
    /**
     * XLSX downloads one account (all its keys and people together) may run at once, in every
     * process together; in any one process never more than DATABASE_BULK_POOL_SIZE - 1 (default:
     * that), so another account's download or the export finds a bulk connection.
     */
    TALLY_REPORT_DOWNLOADS_PER_ACCOUNT: z.coerce.number().int().min(1).max(50).optional(),
    /** Seconds a download past its account's share waits for one of the account's downloads to end, before a 429. */
    TALLY_REPORT_DOWNLOAD_WAIT_SECONDS: z.coerce.number().min(0).max(30).default(2),
    /** A download whose client takes nothing for this many seconds is cut and its connection given back. */
    TALLY_REPORT_DOWNLOAD_STALL_SECONDS: z.coerce.number().min(1).max(3600).default(30),
    /** The longest one download may run, however steadily its client reads. */
    TALLY_REPORT_DOWNLOAD_MAX_SECONDS: z.coerce.number().min(1).max(86_400).default(600),
    /**
     * POST /dashboard/table-file requests a minute one signed-in person, and one account (all its
     * people; staff together), may make, counted in Postgres, so shared by every process. 0: no limit.
     */
    TALLY_TABLE_FILES_PER_MINUTE_PER_USER: z.coerce.number().int().min(0).max(100_000).default(20),
    TALLY_TABLE_FILES_PER_MINUTE_PER_ACCOUNT: z.coerce.number().int().min(0).max(1_000_000).default(60),
    /**
     * The same for the dashboard's figures over a date range (stats, campaign list and page): a
     * screen asks for two to five, so a person clicking fast stays far inside. 0: no limit.
     */
    TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_USER: z.coerce.number().int().min(0).max(100_000).default(600),
    TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_ACCOUNT: z.coerce.number().int().min(0).max(1_000_000).default(3000),
    /** Table files one signed-in person may have written at once, in every process together. */
    TALLY_TABLE_FILES_PER_USER: z.coerce.number().int().min(1).max(50).default(1),
    /** Table files one account (all its people; staff together) may have written at once, in every process together. */
    TALLY_TABLE_FILES_PER_ACCOUNT: z.coerce.number().int().min(1).max(50).default(2),
    /** Table files one web process writes at once, whoever asks: each holds its table in memory. */
    TALLY_TABLE_FILES_PER_PROCESS: z.coerce.number().int().min(1).max(50).default(2),
    /** The most cells (rows × columns, totals included) a table file may hold; counted as the body arrives. */
    TALLY_TABLE_FILE_MAX_CELLS: z.coerce.number().int().min(100).max(10_000_000).default(500_000),
    /** The longest one table file may take to be written and taken by its client, before it is cut and its slot given back. */
    TALLY_TABLE_FILE_MAX_SECONDS: z.coerce.number().min(1).max(600).default(30),
    /**
     * The operator's bucket of report jobs' files (docs/report-jobs.md); unset, POST /report/jobs
     * answers 503. `npm run dev` points it at its local S3.
     */
    TALLY_REPORT_JOBS_BUCKET: z.string().min(3).max(63).optional(),
    /** An S3-compatible endpoint for that bucket (MinIO, R2, a local S3); unset: AWS S3 in its region. */
    TALLY_REPORT_JOBS_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    TALLY_REPORT_JOBS_S3_REGION: z.string().min(1).default("us-east-1"),
    /** Keys of the bucket; unset: the AWS SDK's default chain (an instance role, AWS_* variables). */
    TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Path-style addresses (endpoint/bucket/key), which most S3-compatible stores want. */
    TALLY_REPORT_JOBS_S3_FORCE_PATH_STYLE: z
      .enum(["0", "1"])
      .default("0")
      .transform((value) => value === "1"),
    /**
     * The IANA time zone staff read reports in when a request names none (an account reads in its
     * own, accounts.time_zone); UTC unless set. A name the runtime does not know is refused at start.
     */
    TALLY_DEFAULT_TIME_ZONE: z
      .string()
      .refine((name) => canonicalZone(name) !== null, "must be an IANA time zone name such as America/Sao_Paulo")
      .transform((name) => canonicalZone(name)!)
      .default("UTC"),
    /** Report jobs one account may have queued or running at once; one more is a 429. */
    TALLY_REPORT_JOBS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(5),
    /**
     * Finished report jobs (done or failed) an account keeps: asking for a new job deletes the
     * account's finished jobs older than its newest this many, files included, so an account that
     * asks again and again holds a bounded share of the bucket within the 7 days' retention.
     */
    TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(50),
    /** Times a report job is started before it is failed (a worker that died counts as a start). */
    TALLY_REPORT_JOB_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
    /** Seconds a worker holds a job without renewing it; a job whose worker died is taken again after it. */
    TALLY_REPORT_JOB_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
    /** The longest one attempt of a report job may run. */
    TALLY_REPORT_JOB_MAX_SECONDS: z.coerce.number().int().min(10).max(86_400).default(240),
    /**
     * Seconds between looks for queued report jobs inside a long-running server or `npm run worker`;
     * 0 turns it off. Serverless deployments run GET /api/cron/report-jobs instead (default 0 there).
     */
    TALLY_REPORT_JOBS_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(3600).optional(),
    /**
     * Lets export destinations' endpoints resolve to loopback, private or link-local addresses
     * (a local S3 for the demo and tests). Off by default: a tenant's endpoint must not reach into
     * Tally's own network.
     */
    TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS: z
      .enum(["0", "1"])
      .default("0")
      .transform((value) => value === "1"),
    /** `npm run destinations -- create` takes a bucket's secret key from here rather than the command line (shell history). */
    TALLY_EXPORT_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /**
     * Tally's public address (https://tally.example.com), the start of the links Tally sends (an
     * invitation's); unset, the address the request came to, or from a CLI its --base-url, a running
     * `npm run dev`'s address, or http://localhost:3000 (src/cli/base-url.ts).
     */
    TALLY_PUBLIC_URL: z
      .url({ protocol: /^https?$/ })
      .transform((url) => url.replace(/\/+$/, ""))
      .optional(),
    /**
     * Where invitations are mailed from: smtp://user:password@host:587 (STARTTLS when offered) or
     * smtps://user:password@host:465. Unset, nothing is mailed: the dashboard shows each link once to copy.
     */
    SMTP_URL: z
      .string()
      .refine((value) => /^smtps?:\/\/[^/]/.test(value), "must be an smtp://user:password@host:port or smtps://… URL")
      .optional(),
    /** The sender of those e-mails. */
    SMTP_FROM: z.string().min(3).max(320).default("Tally <no-reply@tally.invalid>"),
    /** Serves the demo store (/demo), whose pages fire real beacons and orders. `npm run dev` turns it on. */
    TALLY_DEMO: z
      .enum(["0", "1"])
      .default("0")
      .transform((value) => value === "1"),
  })
  .transform(({ VERCEL, ...env }, ctx) => {
    const TALLY_ATTRIBUTION_INTERVAL_SECONDS = env.TALLY_ATTRIBUTION_INTERVAL_SECONDS ?? (VERCEL ? 0 : 10);
    const TALLY_EXPORT_INTERVAL_SECONDS = env.TALLY_EXPORT_INTERVAL_SECONDS ?? (VERCEL ? 0 : 60);
    const TALLY_SETTLE_INTERVAL_SECONDS = env.TALLY_SETTLE_INTERVAL_SECONDS ?? (VERCEL ? 0 : 1);
    const TALLY_REPORT_JOBS_INTERVAL_SECONDS = env.TALLY_REPORT_JOBS_INTERVAL_SECONDS ?? (VERCEL ? 0 : 5);
    // The development keys are public (they are in this file): a process that does not say it is
    // a development or test one must bring its own, or it would sign and encrypt with them.
    const developmentKeys = env.NODE_ENV === "development" || env.NODE_ENV === "test";
    if (!developmentKeys && !env.BEACON_SIGNING_KEYS) {
      ctx.addIssue({
        code: "custom",
        path: ["BEACON_SIGNING_KEYS"],
        message: "is required unless NODE_ENV is development or test (kid:secret, secret at least 32 characters)",
      });
    }
    if (!developmentKeys && !env.TALLY_SECRETS_KEY) {
      ctx.addIssue({ code: "custom", path: ["TALLY_SECRETS_KEY"], message: "is required unless NODE_ENV is development or test (32 random bytes, base64)" });
    }
    if (env.TALLY_SIGN_IN_BACKOFF_MAX_SECONDS < env.TALLY_SIGN_IN_BACKOFF_SECONDS) {
      ctx.addIssue({ code: "custom", path: ["TALLY_SIGN_IN_BACKOFF_MAX_SECONDS"], message: "must be at least TALLY_SIGN_IN_BACKOFF_SECONDS" });
      return z.NEVER;
    }
    if (!developmentKeys && (!env.BEACON_SIGNING_KEYS || !env.TALLY_SECRETS_KEY)) return z.NEVER;
    return {
      ...env,
      /** Running on Vercel, whose proxy writes the client's address into X-Forwarded-For. */
      VERCEL: VERCEL !== undefined,
      TALLY_REPORT_DOWNLOADS_PER_ACCOUNT: env.TALLY_REPORT_DOWNLOADS_PER_ACCOUNT ?? Math.max(1, env.DATABASE_BULK_POOL_SIZE - 1),
      TALLY_ATTRIBUTION_INTERVAL_SECONDS,
      TALLY_EXPORT_INTERVAL_SECONDS,
      TALLY_SETTLE_INTERVAL_SECONDS,
      TALLY_REPORT_JOBS_INTERVAL_SECONDS,
      BEACON_SIGNING_KEYS: env.BEACON_SIGNING_KEYS ?? signingKeys.parse(DEVELOPMENT_SIGNING_KEYS),
      TALLY_SECRETS_KEY: env.TALLY_SECRETS_KEY ?? secretsKey.parse(DEVELOPMENT_SECRETS_KEY),
    };
  });

export type ServerEnv = z.output<typeof serverSchema>;

/**
 * What the dev launcher sees: it starts a database itself when none is configured, and signs and
 * encrypts nothing itself, so it needs no keys (`npm run start:local` generates them after this
 * check; the processes it runs check them again).
 */
export type LauncherEnv = Omit<ServerEnv, "DATABASE_URL" | "BEACON_SIGNING_KEYS" | "TALLY_SECRETS_KEY"> & { DATABASE_URL?: string };
const PLACEHOLDER_DATABASE_URL = "postgresql://launcher@placeholder/tally";
// Stand-ins for missing keys while the launcher checks everything else; never returned.
const PLACEHOLDER_SIGNING_KEYS = "launcher:launcher-placeholder-key-never-used-to-sign";
const PLACEHOLDER_SECRETS_KEY = Buffer.alloc(32).toString("base64");

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

function describeIssues(issues: z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    const message = issue.code === "invalid_type" && issue.input === undefined ? "is required but not set" : issue.message;
    return `${name} ${message}`;
  });
}

type Source = Record<string, string | undefined>;

/** Checks the environment of a server process. */
export function parseEnv(source: Source): ServerEnv {
  // An empty variable means unset, as in most shells' `VAR= cmd`.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = serverSchema.safeParse(cleaned);
  if (!result.success) throw new EnvError(describeIssues(result.error.issues));
  return result.data;
}

/** Checks the environment of the dev launcher, for which DATABASE_URL is optional. */
export function parseLauncherEnv(source: Source): LauncherEnv {
  const databaseUrl = source.DATABASE_URL || undefined;
  const {
    BEACON_SIGNING_KEYS: _signing,
    TALLY_SECRETS_KEY: _secrets,
    ...parsed
  } = parseEnv({
    ...source,
    DATABASE_URL: databaseUrl ?? PLACEHOLDER_DATABASE_URL,
    BEACON_SIGNING_KEYS: source.BEACON_SIGNING_KEYS || PLACEHOLDER_SIGNING_KEYS,
    TALLY_SECRETS_KEY: source.TALLY_SECRETS_KEY || PLACEHOLDER_SECRETS_KEY,
  });
  return { ...parsed, DATABASE_URL: databaseUrl };
}

let cached: ServerEnv | undefined;

/** The validated server environment, read once. */
export function env(): ServerEnv {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Prints each problem on its own line and exits non-zero: for process start-up only. */
export function exitOnEnvError(error: unknown): never {
  if (error instanceof EnvError) {
    for (const problem of error.problems) console.error(`tally: environment: ${problem}`);
    process.exit(1);
  }
  throw error;
}
