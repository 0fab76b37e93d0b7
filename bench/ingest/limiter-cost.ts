// `node --import tsx bench/ingest/limiter-cost.ts [--requests 1000000] [--cpu-prof-dir dir]`: what the /v1 rate limits
// cost a beacon, in-process, without HTTP: the calls the beacon route makes (limitAddress, then
// limitPublisher), timed over many requests, and the lease statements they sent to Postgres (the
// tally_v1_limit_leases_total counter). Each case runs in a child process of its own, since the
// limits are read from the environment once. For comparison, the per-process limiters the shared
// ones replaced (rate-limiter-flexible's RateLimiterMemory, two consume() a beacon).
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { BENCH_RATE_LIMITS, log, startDatabase } from "../lib/stack";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "1000000" }, case: { type: "string" }, "cpu-prof-dir": { type: "string" } },
});
const requests = Number(values.requests);

interface Case {
  name: string;
  env: Record<string, string>;
  /** The nth request's address and publisher. */
  source: (n: number) => [string, string];
}

const CASES: Case[] = [
  {
    name: "the ingest benchmark's load: one address, one publisher, its very high limits",
    env: BENCH_RATE_LIMITS,
    source: () => ["203.0.113.7", "pub_demo_market"],
  },
  {
    name: "shoppers at the default limits: 100,000 addresses, 10 requests each for one of 20 publishers",
    env: {},
    source: (n) => [addressOf(Math.floor(n / 10) % 100_000), `pub_${Math.floor(n / 10) % 20}`],
  },
  {
    name: "every request from a new address and publisher pair at the default limits: 100,000 addresses, 10 requests each over 20 publishers",
    env: {},
    source: (n) => [addressOf(Math.floor(n / 10) % 100_000), `pub_${n % 20}`],
  },
  {
    name: "a flood from one address for one publisher at the default limits (refused past 1,000 a window, its limit for the publisher)",
    env: {},
    source: () => ["198.51.100.9", "pub_flooded"],
  },
];

function addressOf(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

async function runCase(which: Case): Promise<void> {
  const { limitAddress, limitPublisher } = await import("@/server/http/rate-limits");
  const { metricsText } = await import("@/server/upkeep/prometheus");
  const sources = Array.from({ length: Math.min(requests, 1_000_000) }, (_, n) => which.source(n));
  let admitted = 0;
  let refused = 0;
  const started = process.cpuUsage();
  const wallStarted = performance.now();
  for (let n = 0; n < requests; n += 1) {
    const [address, publisher] = sources[n % sources.length]!;
    try {
      const first = limitAddress(address);
      if (first) await first;
      const second = limitPublisher(publisher, address);
      if (second) await second;
      admitted += 1;
    } catch {
      refused += 1;
    }
  }
  const wall = performance.now() - wallStarted;
  const cpu = process.cpuUsage(started);
  const text = (await metricsText()).body;
  const leases = Number(/tally_v1_limit_leases_total\{outcome="taken"\} (\d+)/.exec(text)?.[1] ?? 0);
  const keys = Number(/tally_v1_limit_lease_keys_total\{outcome="taken"\} (\d+)/.exec(text)?.[1] ?? 0);
  const perRequest = ((cpu.user + cpu.system) * 1000) / requests;
  console.log(
    JSON.stringify({
      name: which.name,
      requests,
      admitted,
      refused,
      cpuNsPerRequest: Math.round(perRequest),
      wallMs: Math.round(wall),
      leaseStatements: leases,
      leaseKeys: keys,
    }),
  );
  process.exit(0);
}

/** The per-process limiters the shared ones replaced, at `which`'s limits and requests. */
async function oldLimiters(which: Case): Promise<number> {
  const bench = which.env === BENCH_RATE_LIMITS;
  const address = new RateLimiterMemory({ keyPrefix: "a", points: bench ? 10_000_000 : 2000, duration: 10 });
  const publisher = new RateLimiterMemory({ keyPrefix: "p", points: bench ? 100_000_000 : 50_000, duration: 10 });
  const sources = Array.from({ length: Math.min(requests, 1_000_000) }, (_, n) => which.source(n));
  const started = process.cpuUsage();
  for (let n = 0; n < requests; n += 1) {
    const [key, publisherId] = sources[n % sources.length]!;
    try {
      await address.consume(key);
      await publisher.consume(publisherId);
    } catch {
      // refused
    }
  }
  const cpu = process.cpuUsage(started);
  return Math.round(((cpu.user + cpu.system) * 1000) / requests);
}

if (values.case !== undefined) {
  await runCase(CASES[Number(values.case)]!);
} else {
  const { postgres, url } = await startDatabase("limiter-cost");
  try {
    for (const [index, which] of CASES.entries()) {
      const profile = values["cpu-prof-dir"] ? ["--cpu-prof", "--cpu-prof-dir", values["cpu-prof-dir"]] : [];
      const child = spawnSync(
        process.execPath,
        [...profile, "--import", "tsx", "bench/ingest/limiter-cost.ts", "--case", String(index), "--requests", String(requests)],
        {
          env: {
            ...process.env,
            DATABASE_URL: url,
            NODE_ENV: "production",
            BEACON_SIGNING_KEYS: "bench:bench-signing-key-for-the-ingest-benchmark-only",
            ...which.env,
          },
          encoding: "utf8",
        },
      );
      if (child.status !== 0) throw new Error(`case ${index} failed: ${child.stderr}`);
      const result = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
      log(
        `${which.name}: ${result.cpuNsPerRequest} ns of CPU a beacon (both calls), ${result.admitted} admitted, ${result.refused} refused, ` +
          `${result.leaseStatements} lease statements for ${result.leaseKeys} keys over ${requests.toLocaleString("en")} requests; ` +
          `the per-process limiters replaced: ${await oldLimiters(which)} ns`,
      );
    }
  } finally {
    await postgres.stop();
  }
}
