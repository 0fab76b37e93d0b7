// The servers the hostile suite attacks: a throwaway embedded Postgres with migrations and the
// demo data, a local S3 (the demo publisher's export destination), the production build under
// Tally's Next.js server (as `npm start` runs it), and the collector, all with production settings. Tests reach the database
// directly (DATABASE_URL) to check what was stored.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { TestProject } from "vitest/node";
import { ensureDatabase, freePort, keepExitCode, startLocalPostgres, temporaryDataDir } from "@/cli/local/embedded-postgres";
import { startLocalS3 } from "@/cli/local/local-s3";
import { migrateDeploy } from "@/cli/local/prisma-cli";
import { nextServerArgs } from "@/cli/next-server";

declare module "vitest" {
  export interface ProvidedContext {
    hostile: HostileStack;
  }
}

export interface HostileStack {
  databaseUrl: string;
  nextUrl: string;
  collectorUrl: string;
  nextPid: number;
  collectorPid: number;
  s3Endpoint: string;
  /** The environment both servers run with (keys included), for tests that start their own. */
  serverEnv: Record<string, string>;
}

/** Production settings for every server of the suite. */
export const HOSTILE_ENV = {
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  BEACON_SIGNING_KEYS: "hostile:hostile-suite-signing-key-not-for-production-use",
  TALLY_SECRETS_KEY: Buffer.alloc(32, 9).toString("base64"),
  CRON_SECRET: "hostile-suite-cron-secret",
  // /api/health's details and /api/metrics need it.
  TALLY_METRICS_TOKEN: "hostile-suite-metrics-token",
  // Settle and attribution run inside next start (for the collector's beacons too); the suite
  // drives exports itself.
  TALLY_SETTLE_INTERVAL_SECONDS: "0.25",
  TALLY_ATTRIBUTION_INTERVAL_SECONDS: "1",
  TALLY_EXPORT_INTERVAL_SECONDS: "0",
  // Clients are told apart by the X-Forwarded-For entry a (pretend) proxy appends.
  TALLY_TRUSTED_PROXY_HOPS: "1",
  TALLY_V1_RATE_PER_ADDRESS: "20",
  // The suite's destinations are its local S3 on 127.0.0.1.
  TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS: "1",
  // Stalled downloads are cut sooner than the default 30 s, so the suite waits less for it, yet late enough
  // that a loaded machine finishes the work the suite does beside two stalled downloads before they are cut.
  TALLY_REPORT_DOWNLOAD_STALL_SECONDS: "25",
} as const;

const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function startServer(name: string, args: string[], env: Record<string, string>, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  children.push(child);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      await fetch(readyUrl);
      return child;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not start within 90 s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

export default async function setup(project: TestProject) {
  keepExitCode();
  if (!existsSync(".next/BUILD_ID")) throw new Error("the hostile suite needs a production build: run npm run build first (npm run test:hostile does)");
  const postgres = await startLocalPostgres({ dataDir: temporaryDataDir("hostile"), port: await freePort(), ephemeral: true });
  const s3Directory = temporaryDataDir("hostile-s3");
  const s3 = await startLocalS3({ directory: s3Directory, buckets: ["tally-demo"] });
  const started: ChildProcess[] = [];
  try {
    await ensureDatabase(postgres.adminUrl, "tally");
    const databaseUrl = postgres.urlFor("tally");
    await migrateDeploy(databaseUrl);
    process.env.DATABASE_URL = databaseUrl;
    for (const [name, value] of Object.entries(HOSTILE_ENV)) process.env[name] ??= value;
    const { seedDemoData, DEMO } = await import("../prisma/seed");
    await seedDemoData(() => {});
    const { ensureDemoDestination } = await import("@/cli/local/demo-destination");
    await ensureDemoDestination(DEMO.publisherId, s3.endpoint);
    const { disconnectDb } = await import("@/server/db/client");
    await disconnectDb();

    const serverEnv = { ...HOSTILE_ENV, DATABASE_URL: databaseUrl };
    const nextPort = await freePort();
    const next = await startServer(
      "next start",
      nextServerArgs("start", "--port", String(nextPort), "--hostname", "127.0.0.1"),
      serverEnv,
      `http://127.0.0.1:${nextPort}/api/health`,
    );
    started.push(next);
    const collectorPort = await freePort();
    const collector = await startServer(
      "collector",
      ["--import", "tsx", "src/collector/server.ts", String(collectorPort)],
      serverEnv,
      `http://127.0.0.1:${collectorPort}/v1/ads`,
    );
    started.push(collector);

    project.provide("hostile", {
      databaseUrl,
      nextUrl: `http://127.0.0.1:${nextPort}`,
      collectorUrl: `http://127.0.0.1:${collectorPort}`,
      nextPid: next.pid!,
      collectorPid: collector.pid!,
      s3Endpoint: s3.endpoint,
      serverEnv,
    });
  } catch (error) {
    for (const child of started) await stop(child);
    await s3.stop().catch(() => {});
    await rm(s3Directory, { recursive: true, force: true });
    await postgres.stop();
    throw error;
  }

  return async () => {
    for (const child of started) await stop(child);
    await s3.stop().catch(() => {});
    await rm(s3Directory, { recursive: true, force: true });
    await postgres.stop();
  };
}
