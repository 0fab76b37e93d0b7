// `npm run bench:ingest:side-by-side -- --rev <git rev> [--rev ...] [--dir <checkout> ...]
//   [--rounds 5] [--seconds 8]`: collectors of different code, side by side under the ingest load.
// One seeded database; a bare node:http server and one collector per revision (a git worktree of
// it, made here and removed after) or per checkout (`--dir`, e.g. one with uncommitted edits), all
// running at once and loaded in turns, round after round, each with its own presigned beacons and
// browser headers, 64 connections. Prints each one's rate by round, its ratio to the bare server
// of the same round, and CPU a beacon read from /proc: the server's (and of it the kernel's),
// Postgres's (every postgres process), and the load generator's (this process). For changes
// whose effect is smaller than the spread between runs of `bench:ingest`.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "@/cli/local/embedded-postgres";
import { CLOCK_TICKS, cpuTicks, postgresCpuSeconds, postgresCpuSecondsSince } from "../lib/cpu";
import { BENCH_RATE_LIMITS, load, log, type RequestSource, startSeededDatabase, startServer, stopServer } from "../lib/stack";
import { BENCH_SIGNING_KEYS, BROWSER_HEADERS, beaconStream } from "./beacons";

const { values } = parseArgs({
  options: {
    rev: { type: "string", multiple: true, default: [] },
    dir: { type: "string", multiple: true, default: [] },
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "8" },
  },
});
if (values.rev.length + values.dir.length === 0) throw new Error("name at least one --rev or --dir to compare");

const temporary = mkdtempSync(path.join(os.tmpdir(), "tally-side-by-side-"));
const worktrees: string[] = [];
/** A checkout of `rev` that runs as this one does: this one's node_modules and generated Prisma client. */
function checkoutOf(rev: string): string {
  const dir = path.join(temporary, rev.replace(/[^A-Za-z0-9._-]/g, "_"));
  execFileSync("git", ["worktree", "add", "--detach", dir, rev], { stdio: "ignore" });
  worktrees.push(dir);
  symlinkSync(path.resolve("node_modules"), path.join(dir, "node_modules"));
  cpSync("src/server/db/generated", path.join(dir, "src/server/db/generated"), { recursive: true });
  return dir;
}

interface Contender {
  name: string;
  port: number;
  pid: number;
  stop: () => Promise<void>;
  next: RequestSource;
  rates: number[];
  cpu: { server: number; kernel: number; postgres: number; loadGenerator: number }[];
}

const { postgres, url } = await startSeededDatabase("side-by-side");
const contenders: Contender[] = [];
try {
  const env = {
    DATABASE_URL: url,
    BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
    DATABASE_POOL_SIZE: "10",
    TALLY_SETTLE_INTERVAL_SECONDS: "0",
    TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
    TALLY_EXPORT_INTERVAL_SECONDS: "0",
    NODE_ENV: "production",
    ...BENCH_RATE_LIMITS,
  };
  const start = async (name: string, command: string[], serverEnv: Record<string, string>, readyPath: string, cwd?: string) => {
    const port = await freePort();
    const child = await startServer(name, [...command, String(port)], serverEnv, `http://127.0.0.1:${port}${readyPath}`, cwd);
    contenders.push({ name, port, pid: child.pid!, stop: () => stopServer(child), next: beaconStream(`side-${contenders.length}`), rates: [], cpu: [] });
  };
  await start("bare", ["--import", "tsx", "bench/ingest/bare-server.ts"], {}, "/");
  for (const rev of values.rev) await start(rev, ["--import", "tsx", "src/collector/server.ts"], env, "/v1/ads", checkoutOf(rev));
  for (const dir of values.dir) await start(dir, ["--import", "tsx", "src/collector/server.ts"], env, "/v1/ads", path.resolve(dir));

  const options = { connections: 64, seconds: Number(values.seconds), headers: BROWSER_HEADERS };
  for (const contender of contenders)
    await load(`${contender.name} (warm-up)`, `http://127.0.0.1:${contender.port}`, contender.next, { ...options, seconds: 3 });
  for (let round = 1; round <= Number(values.rounds); round += 1) {
    for (const contender of contenders) {
      const server = cpuTicks(contender.pid);
      const postgresBefore = postgresCpuSeconds();
      const loadGenerator = process.cpuUsage();
      const run = await load(`${contender.name}, round ${round}`, `http://127.0.0.1:${contender.port}`, contender.next, options);
      if (run.other > 0 || run.errors > 0) throw new Error(`${contender.name} answered ${run.other} requests with another status, ${run.errors} errors`);
      const perBeacon = (ticks: number) => ((ticks / CLOCK_TICKS) * 1e6) / run.accepted;
      const serverNow = cpuTicks(contender.pid);
      const used = process.cpuUsage(loadGenerator);
      contender.rates.push(run.requestsPerSecond);
      contender.cpu.push({
        server: perBeacon(serverNow.user + serverNow.system - server.user - server.system),
        kernel: perBeacon(serverNow.system - server.system),
        postgres: perBeacon(postgresCpuSecondsSince(postgresBefore) * CLOCK_TICKS),
        loadGenerator: (used.user + used.system) / run.accepted,
      });
    }
  }

  const bare = contenders[0]!;
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  for (const contender of contenders) {
    const ratios = contender.rates.map((rate, i) => rate / bare.rates[i]!);
    const cpu = (key: keyof Contender["cpu"][number]) => mean(contender.cpu.map((round) => round[key])).toFixed(1);
    log(
      `${contender.name}: ${contender.rates.join(" / ")} req/s (mean ${Math.round(mean(contender.rates))}); × bare ${ratios.map((r) => r.toFixed(3)).join(", ")}, median ${median(ratios).toFixed(3)}; CPU a beacon: server ${cpu("server")} µs (kernel ${cpu("kernel")}), Postgres ${cpu("postgres")} µs, load generator ${cpu("loadGenerator")} µs`,
    );
  }
} finally {
  for (const contender of contenders) await contender.stop();
  const { disconnectDb } = await import("@/server/db/client");
  await disconnectDb();
  await postgres.stop();
  for (const dir of worktrees) execFileSync("git", ["worktree", "remove", "--force", dir], { stdio: "ignore" });
  if (existsSync(temporary)) rmSync(temporary, { recursive: true, force: true });
}
// embedded-postgres's exit hook would otherwise turn a failure into status 0 (see run.ts).
process.exit(process.exitCode ?? 0);
