// npm run bench:web-burst: does the web process stay responsive while one signed-in viewer keeps
// ten POST /dashboard/table-file of 40 columns × 100,000 rows (8.2 MB of JSON each) in flight?
// GET /api/health is timed one request after another with the server idle (the baseline), then
// for --seconds while the burst runs (from a process of its own; each post sent again as soon as it
// is answered, a new viewer each round); printed: p50/p95 of both, their ratio, the posts' answers,
// the server's memory and the CPU the server and the attacker used.
// Target: health p95 under the burst within 2× of idle. Runs to its end on any machine; the
// figures are ratios of one run, as the load shares the cores with the server.
// usage: npm run bench:web-burst [-- --rounds 3 --seconds 10 --posts 10 --rows 100000]
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { freePort, type LocalPostgres } from "@/cli/local/embedded-postgres";
import { nextServerArgs } from "@/cli/next-server";
import { BENCH_SIGNING_KEYS } from "../ingest/beacons";
import { ensureProductionBuild, log, runBenchChild, startSeededDatabase, startServer, stopServer } from "../lib/stack";
import { percentile, round } from "../reports/timing";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    posts: { type: "string", default: "10" },
    // Fewer rows tell the cost of the requests apart from the cost of their bodies.
    rows: { type: "string", default: "100000" },
    // Set by the bench for its attacker process: the attack's origin and the viewer's cookie.
    attack: { type: "string" },
    cookie: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const POSTS = Number(values.posts);
const ROWS = Number(values.rows);
const IDLE_REQUESTS = 200;

/** The hostile tester's table: 40 columns of 100,000 rows (by default), about 8.2 MB as JSON. */
function bigTable(): string {
  const columns = Array.from({ length: 40 }, (_, c) => ({ label: `Column ${c}`, kind: c % 2 ? "integer" : "number" }));
  // Single digits: 81 bytes a row, as the hostile tester's 8.2 MB.
  const row = Array.from({ length: 40 }, (_, c) => (c % 9) + 1);
  return JSON.stringify({ format: "xlsx", name: "burst", columns, rows: Array.from({ length: ROWS }, () => row) });
}

const SMALL_TABLE = JSON.stringify({
  format: "xlsx",
  name: "campaigns",
  columns: [
    { label: "Campaign", kind: "text" },
    { label: "Spend", kind: "money", currency: "USD" },
  ],
  rows: [["Spring", 12.5]],
});

/** Resident memory of a process, in MB, from /proc (0 where there is none). */
function rssMb(pid: number | undefined): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Math.round(Number(line[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** Health answers other than 200 (a 503 when the database check ran out of time), counted apart. */
let healthFailures = 0;

/** CPU seconds a process has used so far, from /proc (user and system; 0 where there is none). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function healthOnce(origin: string): Promise<number> {
  const started = performance.now();
  try {
    const response = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(120_000) });
    await response.arrayBuffer();
    if (response.status !== 200) healthFailures += 1;
  } catch {
    healthFailures += 1;
  }
  return performance.now() - started;
}

const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { count: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)) };
};

async function postTable(origin: string, cookie: string, body: string): Promise<number> {
  try {
    const response = await fetch(`${origin}/dashboard/table-file`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie }, body });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

async function viewerCookie(round: number, account: "advertiserId" | "publisherId" = "advertiserId"): Promise<string> {
  const { createUser } = await import("@/server/accounts/create-user");
  const { signIn } = await import("@/server/accounts/sessions");
  const { DEMO } = await import("../../prisma/seed");
  const email = `burst-${round}@bench.test`;
  await createUser({ email, name: `Burst ${round}`, password: "bench burst password", role: "member", accountId: DEMO[account], memberRole: "viewer" });
  return `tally_session=${(await signIn(email, "bench burst password")).token}`;
}

/**
 * The attacker, in a process of its own so that its uploads do not delay the health requests'
 * client: `posts` posts kept in flight for `seconds`; prints the answers' statuses and its CPU.
 */
async function attack(origin: string, cookie: string): Promise<void> {
  const body = bigTable();
  const statuses = new Map<number, number>();
  const until = Date.now() + SECONDS * 1000;
  const poster = async () => {
    while (Date.now() < until) {
      const status = await postTable(origin, cookie, body);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: POSTS }, poster));
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)), cpuSeconds: round((used.user + used.system) / 1e6) }));
}

/** The attacker's burst, health timed one after another meanwhile from this process. */
async function burst(origin: string, server: ChildProcess, cookie: string) {
  const health: number[] = [];
  let peakMb = rssMb(server.pid);
  healthFailures = 0;
  const started = { wall: performance.now(), server: cpuSeconds(server.pid) };
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(server.pid));
  }, 100);
  const args = ["--attack", origin, "--cookie", cookie, "--seconds", String(SECONDS), "--posts", String(POSTS), "--rows", String(ROWS)];
  const attacker = runBenchChild("bench/web/burst.ts", args, process.env);
  let attackDone = false;
  void attacker.finally(() => {
    attackDone = true;
  });
  while (!attackDone) health.push(await healthOnce(origin));
  clearInterval(timer);
  const { status, stdout } = await attacker;
  if (status !== 0) throw new Error(`the attacker ended with ${status}`);
  const attacked = JSON.parse(stdout.trim().split("\n").at(-1)!) as { statuses: Record<string, number>; cpuSeconds: number };
  const cpu = {
    wall: round((performance.now() - started.wall) / 1000),
    server: round(cpuSeconds(server.pid) - started.server),
    generator: attacked.cpuSeconds,
  };
  return { cpu, statuses: attacked.statuses, health: summary(health), healthFailures, peakMb };
}

async function main() {
  await ensureProductionBuild();
  let postgres: LocalPostgres | undefined;
  let server: ChildProcess | undefined;
  try {
    const database = await startSeededDatabase("web-burst");
    postgres = database.postgres;
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // A web process as deployed, its background loops off so that they do not move the figures.
    server = await startServer(
      "next start",
      nextServerArgs("start", "--port", String(port)),
      {
        DATABASE_URL: database.url,
        BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
        NEXT_TELEMETRY_DISABLED: "1",
        NODE_ENV: "production",
        TALLY_SETTLE_INTERVAL_SECONDS: "0",
        TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
        TALLY_EXPORT_INTERVAL_SECONDS: "0",
        TALLY_REPORT_JOBS_INTERVAL_SECONDS: "0",
      },
      `${origin}/api/health`,
    );
    log(
      `table: 40 columns × ${ROWS.toLocaleString("en")} rows, ${round(Buffer.byteLength(bigTable()) / 1e6)} MB, posted by another process; ${POSTS} posts in flight for ${SECONDS} s, ${ROUNDS} rounds`,
    );
    for (let i = 0; i < 10; i += 1) await healthOnce(origin);
    const rows: string[] = [];
    for (let r = 1; r <= ROUNDS && server.exitCode === null; r += 1) {
      const idleTimes: number[] = [];
      for (let i = 0; i < IDLE_REQUESTS; i += 1) idleTimes.push(await healthOnce(origin));
      const idle = summary(idleTimes);
      const idleMb = rssMb(server.pid);
      const cookie = await viewerCookie(r);
      const under = await burst(origin, server, cookie);
      // Once the burst is answered, a table of the dashboard's size from another account's viewer still comes back.
      const after = await postTable(origin, await viewerCookie(100 + r, "publisherId"), SMALL_TABLE);
      const ratio = round(under.health.p95 / idle.p95, 2);
      const line = `round ${r}: health idle p50 ${idle.p50} ms p95 ${idle.p95} ms; under the burst p50 ${under.health.p50} ms p95 ${under.health.p95} ms (${under.health.count} requests, ${under.healthFailures} not 200), p95 ratio ${ratio}; posts answered ${JSON.stringify(under.statuses)}; server ${idleMb} MB idle, peak ${under.peakMb} MB; CPU over ${under.cpu.wall} s: server ${under.cpu.server} s, load generator ${under.cpu.generator} s; a small table afterwards: ${after}`;
      log(line);
      rows.push(line);
    }
    if (server.exitCode !== null) log(`the server ended (exit ${server.exitCode}, signal ${server.signalCode}) during the burst`);
    log("summary:");
    for (const row of rows) log(`  ${row}`);
  } finally {
    if (server) await stopServer(server);
    await postgres?.stop();
  }
}

(values.attack ? attack(values.attack, values.cookie ?? "") : main()).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
