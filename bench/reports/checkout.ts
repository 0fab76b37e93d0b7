// A checkout of Tally as `npm run bench:reports:before-after` runs it: its own seed
// (`bench:seed`, its own schema and data folder), its own production build, its own database and
// `next start`, and API keys made by its own code, so that each side is that commit as a whole.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, type LocalPostgres, startLocalPostgres } from "@/cli/local/embedded-postgres";
import { NEXT_SERVER_NODE_FLAGS } from "@/cli/next-server";
import { BENCH_SIGNING_KEYS } from "../ingest/beacons";
import { log, startServer } from "../lib/stack";
import type { SeedNote } from "./database";
import type { ReportKeys } from "./timing";

export interface Checkout {
  /** "before" or "after", in every line printed about it. */
  label: string;
  dir: string;
}

/** Why `dir` cannot be benchmarked, or null when it can. */
export function checkoutProblem(dir: string): string | null {
  if (!existsSync(dir)) return `${dir} does not exist`;
  for (const file of ["bench/reports/seed.ts", "bench/reports/timing.ts", "src/cli/serve-next.ts"]) {
    if (!existsSync(path.join(dir, file))) return `${dir} is not a checkout of Tally with the report benchmark (no ${file})`;
  }
  if (!existsSync(path.join(dir, "node_modules/.bin/next"))) return `${dir} has no node_modules: install them there first (npm ci)`;
  return null;
}

const dataDir = (checkout: Checkout) => path.join(checkout.dir, "bench/results/reports-pg");

/** The checkout's seed note (bench/reports/database.ts), when its database is there. */
export function seedNoteOf(checkout: Checkout): SeedNote | null {
  const note = path.join(checkout.dir, "bench/results/reports-seed.json");
  if (!existsSync(note) || !existsSync(path.join(dataDir(checkout), "PG_VERSION"))) return null;
  return JSON.parse(readFileSync(note, "utf8")) as SeedNote;
}

/** Runs `npm run <args>` in the checkout, each line it prints marked with the checkout's label. */
export function npmRunIn(checkout: Checkout, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", ...args], { cwd: checkout.dir, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream.setEncoding("utf8").on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) if (line.trim()) console.log(`[${checkout.label}] ${line}`);
      });
    }
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`npm run ${args.join(" ")} in ${checkout.dir} failed (${code})`))));
  });
}

/** Seeds the checkout's database with its own seed code unless it holds `events` events already. */
export async function ensureSeeded(checkout: Checkout, events: number): Promise<SeedNote> {
  const note = seedNoteOf(checkout);
  if (note?.events === events) {
    log(`${checkout.label}: reusing its database: ${events.toLocaleString("en")} events over ${note.firstDay} to ${note.lastDay}, seeded ${note.seededAt}`);
    return note;
  }
  log(`${checkout.label}: seeding ${events.toLocaleString("en")} events with its own npm run bench:seed`);
  await npmRunIn(checkout, ["bench:seed", "--", "--events", String(events)]);
  const seeded = seedNoteOf(checkout);
  if (!seeded) throw new Error(`${checkout.label}: npm run bench:seed left no seed note`);
  return seeded;
}

const newestChange = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0);

/** Builds the checkout for production (`npm run build`) unless .next holds a build newer than its src/. */
export async function ensureBuilt(checkout: Checkout): Promise<void> {
  const buildId = path.join(checkout.dir, ".next/BUILD_ID");
  if (existsSync(buildId) && statSync(buildId).mtimeMs > newestChange(path.join(checkout.dir, "src"))) {
    log(`${checkout.label}: its production build is newer than its sources`);
    return;
  }
  log(`${checkout.label}: building it for production (npm run build)`);
  // prisma generate reads DATABASE_URL's form only; it never connects.
  await npmRunIn(checkout, ["build"], { DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://bench@127.0.0.1:1/bench" });
}

/** Starts the checkout's database (its seed's folder), brought up to its own migrations. */
export async function startCheckoutDatabase(checkout: Checkout): Promise<{ postgres: LocalPostgres; url: string }> {
  const postgres = await startLocalPostgres({ dataDir: dataDir(checkout), port: await freePort(), unsafeFastWrites: true });
  const url = postgres.urlFor("tally");
  await npmRunIn(checkout, ["db:migrate"], { DATABASE_URL: url });
  return { postgres, url };
}

/** API keys of the dataset's accounts, made by the checkout's own code (its bench/reports/timing.ts) in its database. */
export async function checkoutReportKeys(checkout: Checkout, databaseUrl: string): Promise<ReportKeys> {
  const script = path.join(checkout.dir, "bench/results/before-after-keys.ts");
  writeFileSync(script, 'import { reportKeys } from "../reports/timing";\nconsole.log(JSON.stringify(await reportKeys()));\nprocess.exit(0);\n');
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", script], {
        cwd: checkout.dir,
        env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${checkout.label}: making API keys failed (${code})`))));
    });
    const line = stdout
      .trim()
      .split("\n")
      .findLast((l) => l.startsWith("{"));
    if (!line) throw new Error(`${checkout.label}: making API keys printed no keys`);
    return JSON.parse(line) as ReportKeys;
  } finally {
    rmSync(script, { force: true });
  }
}

/** The checkout's `next start` (its own build and server entry) over its database, as bench:reports starts it. */
export async function startCheckoutServer(checkout: Checkout, databaseUrl: string): Promise<{ server: ChildProcess; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: databaseUrl,
    BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_POOL_SIZE: "10",
    NODE_ENV: "production",
    TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
    TALLY_REPORT_JOBS_INTERVAL_SECONDS: "0",
    // Every request is counted by the per-key rate limit, which is set so high that it never refuses.
    TALLY_REPORT_RATE_PER_SECOND: "100000",
  };
  const entry = path.join(checkout.dir, "src/cli/serve-next.ts");
  const args = [...NEXT_SERVER_NODE_FLAGS, "--import", "tsx", entry, "start", "--port", String(port)];
  const server = await startServer(`${checkout.label}: next start`, args, env, `${origin}/api/health`, checkout.dir);
  return { server, origin };
}
