// npm run bench:web-burst: does the web process stay responsive while one signed-in viewer sends
// ten POST /dashboard/table-file of 40 columns × 100,000 rows (8.2 MB of JSON each) at once?
// GET /api/health is timed one request after another with the server idle (the baseline), then
// while the posts run (sent from a process of its own, a new viewer each round); printed per round:
// p50/p95 of both, their ratio, the posts' answers, the server's memory and the CPU the server and
// the attacker used; then the spread of the ratios over the rounds.
// Two modes of attacker:
// - burst (the default): the ten posts at once, each refused one sent again after its Retry-After
//   (as a client that honours the answer), until each is answered otherwise or --seconds end;
// - flood: each post sent again the instant it is answered, whatever the answer, for --seconds.
// Target: health p95 under the burst within 2× of idle. Runs to its end on any machine; the
// figures are ratios of one run, as the load shares the cores with the server.
// usage: npm run bench:web-burst [-- --mode burst|flood --rounds 3 --seconds 75 --posts 10 --rows 100000]
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
    mode: { type: "string", default: "burst" },
    rounds: { type: "string", default: "3" },
    // The burst's retries wait out Retry-After, up to the rest of a minute: its rounds run longer.
    seconds: { type: "string" },
    posts: { type: "string", default: "10" },
    // Fewer rows tell the cost of the requests apart from the cost of their bodies.
    rows: { type: "string", default: "100000" },
    // Set by the bench for its attacker process: the attack's origin and the viewer's cookie.
    attack: { type: "string" },
    cookie: { type: "string" },
  },
});
const MODE = values.mode === "flood" ? "flood" : "burst";
if (values.mode !== MODE) throw new Error(`--mode is burst or flood, not ${values.mode}`);
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds ?? (MODE === "burst" ? 75 : 10));
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

async function postTable(origin: string, cookie: string, body: string): Promise<{ status: number; retryAfter: number }> {
  try {
    const response = await fetch(`${origin}/dashboard/table-file`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie }, body });
    await response.arrayBuffer();
    return { status: response.status, retryAfter: Number(response.headers.get("retry-after") ?? 1) };
  } catch {
    return { status: 0, retryAfter: 1 };
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
 * client: `posts` posts sent at once, then as the mode says until `seconds` end; prints the
 * answers' statuses, the seconds until the last post's final answer (burst) and its CPU.
 */
async function attack(origin: string, cookie: string): Promise<void> {
  const body = bigTable();
  const statuses = new Map<number, number>();
  const started = Date.now();
  const until = started + SECONDS * 1000;
  let lastAnswered = 0;
  const poster = async () => {
    while (Date.now() < until) {
      const { status, retryAfter } = await postTable(origin, cookie, body);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (MODE === "flood") continue;
      if (status !== 429) {
        lastAnswered = Math.max(lastAnswered, Date.now() - started);
        return;
      }
      const wait = Math.min(retryAfter * 1000, until - Date.now());
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: POSTS }, poster));
  const used = process.cpuUsage(cpu);
  const answered = MODE === "burst" ? round(lastAnswered / 1000) : null;
  console.log(
    JSON.stringify({ statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)), answered, cpuSeconds: round((used.user + used.system) / 1e6) }),
  );
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
  const args = ["--attack", origin, "--cookie", cookie, "--mode", MODE, "--seconds", String(SECONDS), "--posts", String(POSTS), "--rows", String(ROWS)];
  const attacker = runBenchChild("bench/web/burst.ts", args, process.env);
  let attackDone = false;
  void attacker.finally(() => {
    attackDone = true;
  });
  while (!attackDone) health.push(await healthOnce(origin));
  clearInterval(timer);
  const { status, stdout } = await attacker;
  if (status !== 0) throw new Error(`the attacker ended with ${status}`);
  const attacked = JSON.parse(stdout.trim().split("\n").at(-1)!) as { statuses: Record<string, number>; answered: number | null; cpuSeconds: number };
  const cpu = {
    wall: round((performance.now() - started.wall) / 1000),
    server: round(cpuSeconds(server.pid) - started.server),
    generator: attacked.cpuSeconds,
  };
  return { cpu, statuses: attacked.statuses, answered: attacked.answered, health: summary(health), healthFailures, peakMb };
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
      `table: 40 columns × ${ROWS.toLocaleString("en")} rows, ${round(Buffer.byteLength(bigTable()) / 1e6)} MB, posted by another process; ${POSTS} posts at once, ${MODE === "burst" ? "each refused one sent again after its Retry-After" : "each sent again as soon as it is answered"}, for at most ${SECONDS} s; ${ROUNDS} rounds`,
    );
    for (let i = 0; i < 10; i += 1) await healthOnce(origin);
    const rows: string[] = [];
    const figures: { idle: number; under: number; ratio: number }[] = [];
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
      figures.push({ idle: idle.p95, under: under.health.p95, ratio });
      const answered = under.answered === null ? "" : `, the last answered otherwise than 429 after ${under.answered} s`;
      const line = `round ${r}: health idle p50 ${idle.p50} ms p95 ${idle.p95} ms; under the burst p50 ${under.health.p50} ms p95 ${under.health.p95} ms (${under.health.count} requests, ${under.healthFailures} not 200), p95 ratio ${ratio}; posts answered ${JSON.stringify(under.statuses)}${answered}; server ${idleMb} MB idle, peak ${under.peakMb} MB; CPU over ${under.cpu.wall} s: server ${under.cpu.server} s, load generator ${under.cpu.generator} s; a small table afterwards: ${after.status}`;
      log(line);
      rows.push(line);
    }
    if (server.exitCode !== null) log(`the server ended (exit ${server.exitCode}, signal ${server.signalCode}) during the burst`);
    log("summary:");
    for (const row of rows) log(`  ${row}`);
    const spread = (pick: (f: (typeof figures)[number]) => number) => {
      const values = figures.map(pick);
      return `${Math.min(...values)}–${Math.max(...values)}`;
    };
    if (figures.length > 0)
      log(
        `${MODE}: health p95 idle ${spread((f) => f.idle)} ms, under it ${spread((f) => f.under)} ms, ratio ${spread((f) => f.ratio)} over ${figures.length} rounds (target: at most 2)`,
      );
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
