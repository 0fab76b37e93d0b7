// Shared by the benchmarks: a throwaway embedded Postgres with migrations and demo data, child
// servers that are always stopped, and autocannon runs summarised the same way.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { ensureDatabase, freePort, type LocalPostgres, startLocalPostgres, temporaryDataDir } from "@/cli/local/embedded-postgres";
import { migrateDeploy } from "@/cli/local/prisma-cli";
import { BENCH_SIGNING_KEYS } from "../ingest/beacons";

export const log = (line: string) => console.log(`bench: ${line}`);

const BENCH_SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");
// The benchmark's own process (fixtures, seeding, signing beacons) runs like a production one:
// it brings its keys, as every process that is not explicitly a development or test one must
// (src/env.ts). The servers it starts inherit them.
process.env.BEACON_SIGNING_KEYS ??= BENCH_SIGNING_KEYS;
process.env.TALLY_SECRETS_KEY ??= BENCH_SECRETS_KEY;

/**
 * The load comes from one address and one publisher: the rate limits are set so high that they
 * never refuse, yet every request is still counted by them, so their cost is in the figures.
 */
export const BENCH_RATE_LIMITS = {
  TALLY_V1_RATE_PER_ADDRESS: "1000000",
  TALLY_V1_RATE_PER_PUBLISHER_ADDRESS: "1000000",
  TALLY_V1_RATE_PER_PUBLISHER: "10000000",
} as const;

export async function startDatabase(label: string): Promise<{ postgres: LocalPostgres; url: string }> {
  const postgres = await startLocalPostgres({ dataDir: temporaryDataDir(`bench-${label}`), port: await freePort(), ephemeral: true });
  await ensureDatabase(postgres.adminUrl, "tally");
  const url = postgres.urlFor("tally");
  log(`database: ${await migrateDeploy(url)}`);
  return { postgres, url };
}

/**
 * Lets go of this process's clients of the database it was pointed at (Prisma's and the pg
 * pool), then stops the database: what a benchmark calling domain functions in-process ends with.
 */
export async function stopDatabase(postgres: LocalPostgres): Promise<void> {
  const { disconnectDb } = await import("@/server/db/client");
  const { closePgPool } = await import("@/server/db/pg-pool");
  await disconnectDb();
  await closePgPool();
  await postgres.stop();
}

/**
 * startDatabase with the demo data seeded, and this process pointed at it (DATABASE_URL), so the
 * domain functions a benchmark calls in-process use the same database.
 */
export async function startSeededDatabase(label: string): Promise<{ postgres: LocalPostgres; url: string }> {
  const database = await startDatabase(label);
  process.env.DATABASE_URL = database.url;
  const { seedDemoData } = await import("../../prisma/seed");
  await seedDemoData(() => {});
  return database;
}

const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts a server process (in `cwd`, by default this one's) and resolves once `readyUrl` answers (any status). */
/**
 * A child bench script (`node --import tsx <script> ...args`) run to its end, its stdout collected
 * and its stderr passed through. Never spawnSync while this process runs an embedded Postgres:
 * the Postgres writes its log to pipes this process drains, and a blocked event loop leaves them
 * full, which stalls every Postgres backend that logs (a DROP TABLE waited ten minutes on it).
 */
export function runBenchChild(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout }));
  });
}

export async function startServer(name: string, command: string[], env: Record<string, string>, readyUrl: string, cwd?: string): Promise<ChildProcess> {
  // Production mode needs a secrets key; benchmarks store no secrets worth keeping.
  const child = spawn(process.execPath, command, {
    cwd,
    env: { TALLY_SECRETS_KEY: BENCH_SECRETS_KEY, ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      await fetch(readyUrl, { method: "POST", body: "{}" });
      log(`${name} is up`);
      return child;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not start within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

/** The newest modification time of a file under `dir`, in ms. */
function newestChange(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** Runs `npm run build` unless .next holds a build newer than every file under src/. */
export function ensureProductionBuild(): Promise<void> {
  if (existsSync(".next/BUILD_ID") && statSync(".next/BUILD_ID").mtimeMs > newestChange("src")) return Promise.resolve();
  log("no production build of the current sources: running npm run build");
  return new Promise((resolve, reject) => {
    const build = spawn("npm", ["run", "build"], { stdio: "inherit" });
    build.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm run build failed (${code})`))));
  });
}

/** The requests of a load, one per call: its path, body and (to check it was stored) id. */
export type RequestSource = () => { path: string; body: string; id?: string };

export interface LoadOptions {
  connections: number;
  seconds: number;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface LoadResult {
  name: string;
  /** Ids (see `load`) of the requests answered 2xx. */
  acceptedIds: string[];
  requestsPerSecond: number;
  p50: number;
  p99: number;
  accepted: number;
  other: number;
  errors: number;
}

/**
 * Loads `origin` with POSTs; `next()` gives each request its own path, body and id, and the ids
 * of the requests answered 2xx are collected, so a caller can check each one was stored.
 */
export async function load(name: string, origin: string, next: RequestSource, options: LoadOptions): Promise<LoadResult> {
  const acceptedIds: string[] = [];
  const result = await autocannon({
    url: origin,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: "POST",
        headers: { "content-type": options.contentType ?? "application/json", ...options.headers },
        // One request at a time per connection, so the connection's context names the request
        // that a response answers.
        setupRequest: (request, context) => {
          const { id, ...rest } = next();
          (context as { id?: string }).id = id;
          return { ...request, ...rest };
        },
        onResponse: (status, _body, context) => {
          const id = (context as { id?: string }).id;
          if (status >= 200 && status < 300 && id) acceptedIds.push(id);
        },
      },
    ],
  });
  const summary: LoadResult = {
    name,
    acceptedIds,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    accepted: result["2xx"],
    other: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  log(
    `${name}: ${summary.requestsPerSecond} req/s, p50 ${summary.p50} ms, p99 ${summary.p99} ms, 2xx ${summary.accepted}, other ${summary.other}, errors ${summary.errors}`,
  );
  return summary;
}

export const WARM_UP_SECONDS = 3;

/**
 * `load`, after a few seconds of the same requests that warm the server and the load generator in
 * this process (JIT, pools, caches): measured cold, whichever runs first would lose to the rest.
 * The warm-up's answers are checked like the run's (its accepted ids and other answers are added);
 * its rate is not.
 */
export async function warmThenLoad(name: string, origin: string, next: RequestSource, options: LoadOptions): Promise<LoadResult> {
  const warmUp = await load(`${name} (warm-up)`, origin, next, { ...options, seconds: WARM_UP_SECONDS });
  return mergeRuns(name, warmUp, [await load(name, origin, next, options)]);
}

/**
 * One server's runs as one result: the accepted ids, other answers and errors of every run, the
 * warm-up's included, so all are checked; the rate the mean of the measured runs, p50 and p99 the
 * worst of them.
 */
function mergeRuns(name: string, warmUp: LoadResult, measured: LoadResult[]): LoadResult {
  const every = [warmUp, ...measured];
  return {
    name,
    acceptedIds: every.flatMap((run) => run.acceptedIds),
    requestsPerSecond: Math.round(measured.reduce((sum, run) => sum + run.requestsPerSecond, 0) / measured.length),
    p50: Math.max(...measured.map((run) => run.p50)),
    p99: Math.max(...measured.map((run) => run.p99)),
    accepted: measured.reduce((sum, run) => sum + run.accepted, 0),
    other: every.reduce((sum, run) => sum + run.other, 0),
    errors: every.reduce((sum, run) => sum + run.errors, 0),
  };
}

/** One server under load: its name, its origin and the requests it is sent. */
export interface LoadTarget {
  name: string;
  origin: string;
  next: RequestSource;
}

/**
 * A route and its baseline loaded in turns: after one warm-up of each, `rounds` rounds of
 * `options.seconds`, baseline then route, each round giving a ratio of the route's rate to the
 * baseline's. Whatever else the machine does in a round falls on both of its runs alike, where one
 * long run of each would charge a slow stretch to whichever ran then. The ratio reported is the
 * median of the rounds'. Each side's runs are merged: accepted ids, other answers and errors of
 * every round (warm-up included) summed, the rate the mean of the rounds, p50 and p99 the worst round's.
 */
export async function interleavedLoads(
  baseline: LoadTarget,
  route: LoadTarget,
  options: LoadOptions & { rounds: number },
): Promise<{ baseline: LoadResult; route: LoadResult; ratios: number[]; ratio: number }> {
  const warm = { ...options, seconds: WARM_UP_SECONDS };
  const baselineWarmUp = await load(`${baseline.name} (warm-up)`, baseline.origin, baseline.next, warm);
  const routeWarmUp = await load(`${route.name} (warm-up)`, route.origin, route.next, warm);
  const baselineRounds: LoadResult[] = [];
  const routeRounds: LoadResult[] = [];
  for (let round = 1; round <= options.rounds; round += 1) {
    baselineRounds.push(await load(`${baseline.name}, round ${round}`, baseline.origin, baseline.next, options));
    routeRounds.push(await load(`${route.name}, round ${round}`, route.origin, route.next, options));
  }
  const ratios = routeRounds.map((run, i) => run.requestsPerSecond / baselineRounds[i]!.requestsPerSecond);
  const sorted = [...ratios].sort((a, b) => a - b);
  const ratio = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  log(`${route.name} ÷ ${baseline.name}, by round: ${ratios.map((r) => r.toFixed(3)).join(", ")}; median ${ratio.toFixed(3)}`);
  return { baseline: mergeRuns(baseline.name, baselineWarmUp, baselineRounds), route: mergeRuns(route.name, routeWarmUp, routeRounds), ratios, ratio };
}
