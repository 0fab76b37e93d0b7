// `npm run dev` and `npm run start:local`: runs Tally with everything it needs on this machine.
// Without DATABASE_URL it starts an embedded Postgres (data in .data/postgres, or a temporary
// directory with --ephemeral), applies migrations, seeds the demo data once, starts a local S3
// (s3rver, files in .data/s3) as the demo publisher's export destination, then runs Next.js.
// With --clickhouse (and no CLICKHOUSE_URL) ClickHouse is the store, in-process (chdb, data in
// .data/clickhouse): the launcher migrates it, lets go of it, and the Next.js server alone opens it
// (chdb lets one process at a time open a folder; the seed writes Postgres only).
// Ctrl-C (or SIGTERM) stops Next.js first, then the local S3 and Postgres, so the data stays clean.
import { type ChildProcess, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { exitOnEnvError, type LauncherEnv, parseLauncherEnv } from "@/env";
import { forgetAppAddress, recordAppAddress } from "./local/app-address";
import { ensureDemoDestination } from "./local/demo-destination";
import { ensureDatabase, freePort, type LocalPostgres, startLocalPostgres, temporaryDataDir } from "./local/embedded-postgres";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "./local/local-s3";

import { localSecrets } from "./local/local-secrets";
import { migrateDeploy } from "./local/prisma-cli";
import { nextServerArgs } from "./next-server";

const log = (line: string) => console.log(`tally: ${line}`);

/** The local S3 bucket of report jobs' files in `npm run dev`. */
const LOCAL_REPORT_JOBS_BUCKET = "tally-report-jobs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: "string" },
    ephemeral: { type: "boolean", default: false },
    "no-seed": { type: "boolean", default: false },
    /** No local S3 and no demo export destination. */
    "no-s3": { type: "boolean", default: false },
    /** Port of the embedded Postgres (the e2e tests read the database they drive). */
    "pg-port": { type: "string" },
    /** ClickHouse as the store: an in-process one (chdb) in <TALLY_DATA_DIR>/clickhouse, unless CLICKHOUSE_URL names one. */
    clickhouse: { type: "boolean", default: false },
    /** Days of demo traffic made once after the seed (prisma/demo-history.ts): 60 in dev, none in start; 0 for none. */
    history: { type: "string" },
  },
});
const requestedMode = positionals[0] ?? "dev";
if (requestedMode !== "dev" && requestedMode !== "start") {
  console.error(`tally: unknown mode '${requestedMode}' (use dev or start)`);
  process.exit(2);
}
const mode: "dev" | "start" = requestedMode;

// `dev` is a development run by definition: it says so explicitly, for this process (the seed
// runs here) and everything it starts, since src/env.ts uses its public development keys only
// then; and it serves the demo store unless TALLY_DEMO=0. `start` stays a production-mode run:
// it generates real keys below, and serves the demo only with TALLY_DEMO=1 (the e2e tests).
if (mode === "dev") {
  Object.assign(process.env, { NODE_ENV: "development" }); // typed read-only for Next.js code
  process.env.TALLY_DEMO ||= "1";
}

let config: LauncherEnv;
try {
  config = parseLauncherEnv(process.env);
} catch (error) {
  exitOnEnvError(error);
}

// Set before any server module reads the environment (env() reads it once), and passed to Next.js.
let ephemeralClickhouse: string | undefined;
if (values.clickhouse && !process.env.CLICKHOUSE_URL) {
  const folder = values.ephemeral ? temporaryDataDir(`${mode}-clickhouse`) : path.resolve(config.TALLY_DATA_DIR, "clickhouse");
  if (values.ephemeral) ephemeralClickhouse = folder;
  process.env.CLICKHOUSE_URL = `chdb:${folder}`;
}

let postgres: LocalPostgres | undefined;
let s3: LocalS3 | undefined;
let next: ChildProcess | undefined;
let shuttingDown = false;

async function shutdown(code: number): Promise<never> {
  if (!shuttingDown) {
    shuttingDown = true;
    if (next && next.exitCode === null && next.signalCode === null) {
      const exited = new Promise((resolve) => next?.once("exit", resolve));
      next.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (next.exitCode === null && next.signalCode === null) next.kill("SIGKILL");
    }
    if (!values.ephemeral) await forgetAppAddress(config.TALLY_DATA_DIR).catch(() => {});
    if (s3) {
      log("stopping the local S3");
      await s3.stop().catch(() => {});
    }
    if (postgres) {
      log("stopping Postgres");
      await postgres.stop();
    }
    if (ephemeralClickhouse) await rm(ephemeralClickhouse, { recursive: true, force: true }).catch(() => {});
  }
  process.exit(code);
}

// Never leave Next.js running behind an exiting launcher, whatever the exit path.
process.on("exit", () => {
  if (next && next.exitCode === null) next.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  // embedded-postgres installs its own exit hook on these signals, which stops Postgres and exits
  // at once; this launcher stops Next.js first, then Postgres, so it owns the signals.
  process.removeAllListeners(signal);
  process.on(signal, () => void shutdown(0));
}

// Over 80 lines on purpose: start-up reads best as one story, in the order it happens.
async function main(): Promise<void> {
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const dataDir = values.ephemeral ? temporaryDataDir(mode) : path.join(config.TALLY_DATA_DIR, "postgres");
    const port = values["pg-port"] ? Number(values["pg-port"]) : values.ephemeral ? await freePort() : config.TALLY_EMBEDDED_PG_PORT;
    log(`DATABASE_URL is not set: starting an embedded Postgres on 127.0.0.1:${port} (${values.ephemeral ? "temporary" : dataDir})`);
    postgres = await startLocalPostgres({ dataDir, port, ephemeral: values.ephemeral, log });
    if (await ensureDatabase(postgres.adminUrl, "tally")) log("created database 'tally'");
    databaseUrl = postgres.urlFor("tally");
    // The CLIs (keys, users, export, ...) reach this database with the same URL, printed whole: it
    // is a local server's development login, not a secret.
    log(`local database: DATABASE_URL=${databaseUrl} (with NODE_ENV=development, for npm run keys, users and the other commands)`);
  } else {
    log(`using DATABASE_URL (${new URL(databaseUrl).host})`);
  }
  process.env.DATABASE_URL = databaseUrl;

  log("applying migrations");
  log(`migrations: ${await migrateDeploy(databaseUrl)}`);

  // Production mode needs real signing and secrets keys; locally the launcher makes them if none
  // are set. They are in place before the seed, which stores the demo destination's secret.
  const secrets = mode === "start" ? await localSecrets(config.TALLY_DATA_DIR, values.ephemeral) : {};
  for (const [name, value] of Object.entries(secrets) as [string, string][]) process.env[name] ??= value;

  // Today's and the next days' partitions before the first event, so no day starts in a default
  // partition (after the keys: the server's modules read the environment).
  const { createPartitionsAhead } = await import("@/server/upkeep/day-partitions.sql");
  const made = await createPartitionsAhead(new Date());
  log(`day partitions: ${made.length > 0 ? `created ${made.length}, through ${made.at(-1)!.slice(-8)}` : "ready"}`);
  const { disconnectDb } = await import("@/server/db/client");
  if (!values["no-seed"]) {
    const { seedDemoData } = await import("../../prisma/seed");
    await seedDemoData((line) => log(line));
    const historyDays = Number(values.history ?? (mode === "dev" ? 60 : 0));
    if (!Number.isInteger(historyDays) || historyDays < 0 || historyDays > 90) throw new Error("--history takes a number of days from 0 to 90");
    if (historyDays > 0) {
      const { seedDemoHistory } = await import("../../prisma/demo-history");
      await seedDemoHistory({ days: historyDays, log });
    }
  }
  if (!values["no-s3"]) {
    // The local S3 listens on 127.0.0.1: the servers started here may export to private addresses.
    process.env.TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS = "1";
    const directory = values.ephemeral ? `${temporaryDataDir(`${mode}-s3`)}` : path.join(config.TALLY_DATA_DIR, "s3");
    s3 = await startLocalS3({ directory, port: values.ephemeral ? 0 : config.TALLY_LOCAL_S3_PORT, buckets: ["tally-demo", LOCAL_REPORT_JOBS_BUCKET] });
    // Report jobs write to the local S3 too, unless the operator named a bucket of their own.
    if (!process.env.TALLY_REPORT_JOBS_BUCKET) {
      Object.assign(process.env, {
        TALLY_REPORT_JOBS_BUCKET: LOCAL_REPORT_JOBS_BUCKET,
        TALLY_REPORT_JOBS_S3_ENDPOINT: s3.endpoint,
        TALLY_REPORT_JOBS_S3_FORCE_PATH_STYLE: "1",
        TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
        TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
      });
      log(`report jobs write to bucket ${LOCAL_REPORT_JOBS_BUCKET} of the local S3`);
    }
    const { DEMO } = await import("../../prisma/seed");
    const destination = await ensureDemoDestination(DEMO.publisherId, s3.endpoint);
    log(
      `local S3 at ${s3.endpoint} (${directory})${destination ? `: export destination ${destination} of the demo publisher writes to bucket tally-demo` : ""}`,
    );
  }
  await migrateTheStore();
  await disconnectDb();
  await (await import("@/server/db/pg-pool")).closePgPool();
  const port = values.port ?? process.env.PORT ?? "3000";
  log(`starting Next.js (${mode}) on http://localhost:${port}`);
  next = spawn(process.execPath, nextServerArgs(mode, "--port", port, "--hostname", "0.0.0.0"), {
    stdio: "inherit",
    // Telemetry would try to reach the network on every start; a user can still opt in.
    env: { NEXT_TELEMETRY_DISABLED: "1", ...secrets, ...process.env, DATABASE_URL: databaseUrl, PORT: port },
  });
  // The CLIs run beside it print links to this address (src/cli/base-url.ts); a temporary run keeps no such file.
  if (!values.ephemeral) await recordAppAddress(config.TALLY_DATA_DIR, `http://localhost:${port}`);
  next.on("exit", (code, signal) => {
    if (!shuttingDown) {
      log(`Next.js exited (${signal ?? code})`);
      void shutdown(code ?? 1);
    }
  });
}

/** Says which store serves the reports, and with ClickHouse migrates it and lets go of it for the server. */
async function migrateTheStore(): Promise<void> {
  const url = process.env.CLICKHOUSE_URL;
  if (!url) {
    log("store: Postgres (settled events and reports in Postgres; --clickhouse puts them in ClickHouse)");
    return;
  }
  const where = url.startsWith("chdb:") ? `in-process (chdb), data in ${url.slice("chdb:".length)}` : new URL(url).host;
  log(`store: ClickHouse, ${where}: settled events shipped from Postgres's outbox, reports read from ClickHouse`);
  const { migrateStore } = await import("@/server/store/start-store");
  const { closeStore } = await import("@/server/store");
  const applied = await migrateStore();
  log(`ClickHouse migrations: ${applied && applied.length > 0 ? `applied ${applied.join(", ")}` : "up to date"}`);
  await closeStore();
}

main().catch(async (error: unknown) => {
  console.error(`tally: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
});
