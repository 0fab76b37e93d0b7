// `npm run bench:reports:before-after -- --before <checkout> [--requests 200] [--rounds 3]
// [--events 10000000]`: the report routes of another checkout (say, the commit before report
// zones) and of this one, timed under the same load. Run minutes apart on a machine shared with
// other work, two runs of bench:reports are not comparable; here both servers run at once and
// each request of one is followed by the same request of the other.
//   - Each checkout is seeded with its own `bench:seed` (its own schema and data folder; reused
//     when it holds `--events` events), built with its own `npm run build` (unless its build is
//     newer than its sources) and served by its own `next start`; its API keys are made by its
//     own code.
//   - Rows and bytes of each database's report tables are printed first.
//   - Then, `--rounds` times: GET /api/health on both (the control: the same code on both
//     sides), and each JSON route of bench:reports (timing.ts) on before (in UTC: read without
//     `time_zone` when its routes do not take one), after in UTC and after in America/Sao_Paulo
//     (the large advertiser's zone, kept from the first seeded day), one request of each in turn
//     (in-turns.ts), then GET /report/hours in UTC and in São Paulo on after.
//   - Per route: each side's p95 (the median over the rounds), the ratio to before's p95 (for the
//     hours report: to its own p95 in UTC) in each round, and their min–max. The ratio's target is
//     met when it is at most 1.10 in every round, "inside the spread" when in some, missed when in
//     none; apart from it, whether the p95 is under 50 ms.
// Prints the figures as JSON too (and writes them to bench/results/before-after.json); exits 1
// when a route missed, 2 when a checkout cannot be run.
import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import type { LocalPostgres } from "@/cli/local/embedded-postgres";
import { UTC } from "@/server/core/time-zones";
import { log, stopServer } from "../lib/stack";
import { type Checkout, checkoutProblem, checkoutReportKeys, ensureBuilt, ensureSeeded, startCheckoutDatabase, startCheckoutServer } from "./checkout";
import type { SeedNote } from "./database";
import { ZONED_READS } from "./dataset";
import { p95sInTurns, type Variant } from "./in-turns";
import { describeSizes, reportTableSizes } from "./report-table-sizes";
import { hoursRoute, REPORT_TARGETS, type ReportKeys, reportRoutes, round } from "./timing";

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    requests: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
    events: { type: "string", default: "10000000" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const EVENTS = Number(values.events);
/** The issue's bound: each route's p95 within 10 % of before's. */
const MAX_RATIO = 1.1;

/** One side, running: its server's origin, keys, seed and whether its routes take `time_zone`. */
interface Side {
  checkout: Checkout;
  origin: string;
  keys: ReportKeys;
  note: SeedNote;
  zones: boolean;
}

/** Requests compared in turns, the first variant the one the others are measured against. */
interface Comparison {
  route: string;
  variants: Variant[];
}

const rangeOf = (note: SeedNote) => `start_date=${note.firstDay}&end_date=${note.lastDay}`;
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** Whether the side's report routes take `time_zone` (those from before zones answer 400 to it). */
async function takesTimeZone(origin: string, note: SeedNote, keys: ReportKeys): Promise<boolean> {
  const response = await fetch(`${origin}/campaign/v2?${rangeOf(note)}&time_zone=UTC`, { headers: { Authorization: `Bearer ${keys.advertiser}` } });
  await response.arrayBuffer();
  if (response.status !== 200 && response.status !== 400) throw new Error(`${origin}/campaign/v2 answered ${response.status}`);
  return response.status === 200;
}

/** What is compared: the control, each report route on both sides (and zoned on after), the hours on after. */
function comparisons(before: Side, after: Side): Comparison[] {
  const variant = (side: Side, label: string, [, routePath, key]: [string, string, string]): Variant => ({ label, url: `${side.origin}${routePath}`, key });
  const beforeRoutes = reportRoutes(rangeOf(before.note), before.keys, before.zones ? UTC : null);
  const afterRoutes = reportRoutes(rangeOf(after.note), after.keys, after.zones ? UTC : null);
  const zonedRoutes = after.zones ? reportRoutes(rangeOf(after.note), after.keys, ZONED_READS) : [];
  const list: Comparison[] = [
    {
      route: "/api/health",
      variants: [
        { label: "before", url: `${before.origin}/api/health`, key: null },
        { label: "after", url: `${after.origin}/api/health`, key: null },
      ],
    },
    ...beforeRoutes.map(([route], i) => ({
      route,
      variants: [
        variant(before, "before", beforeRoutes[i]!),
        variant(after, "after, UTC", afterRoutes[i]!),
        ...(zonedRoutes[i] ? [variant(after, `after, ${ZONED_READS}`, zonedRoutes[i])] : []),
      ],
    })),
  ];
  if (after.zones) {
    list.push({
      route: "/report/hours",
      variants: [
        variant(after, "after, UTC", hoursRoute(rangeOf(after.note), after.keys, UTC)),
        variant(after, `after, ${ZONED_READS}`, hoursRoute(rangeOf(after.note), after.keys, ZONED_READS)),
      ],
    });
  }
  return list;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[sorted.length >> 1]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

/** Variant k's figures over the rounds, against variant `base`. */
function summarise(comparison: Comparison, p95s: number[][], k: number, base: number) {
  const ratios = p95s.map((round_) => round(round_[k]! / round_[base]!, 2));
  const p95 = round(median(p95s.map((r) => r[k]!)));
  // The two targets apart: on a loaded machine the absolute one can be missed by both sides alike.
  const verdict = ratios.every((r) => r <= MAX_RATIO) ? "met" : ratios.some((r) => r <= MAX_RATIO) ? "inside the spread" : "missed";
  return {
    variant: comparison.variants[k]!.label,
    against: comparison.variants[base]!.label,
    p95_ms: p95,
    p95_ms_by_round: p95s.map((r) => r[k]!),
    ratio: round(median(ratios), 2),
    ratio_min: Math.min(...ratios),
    ratio_max: Math.max(...ratios),
    verdict,
    under_p95_target: p95 < REPORT_TARGETS.p95Ms,
  };
}

/** Brings both checkouts up: seeds (at once) and builds (one after the other, beside the seeds), then databases, keys and servers. */
async function startSides(checkouts: Checkout[], started: { postgres: LocalPostgres[]; servers: ChildProcess[]; pools: pg.Pool[] }): Promise<Side[]> {
  const builds = (async () => {
    for (const checkout of checkouts) await ensureBuilt(checkout);
  })();
  const [notes] = await Promise.all([Promise.all(checkouts.map((c) => ensureSeeded(c, EVENTS))), builds]);
  if (notes[0]!.firstDay !== notes[1]!.firstDay)
    log(`the seeds cover different days (${notes[0]!.firstDay} and ${notes[1]!.firstDay}): each side reads its own 30 days`);
  const sides: Side[] = [];
  for (const [i, checkout] of checkouts.entries()) {
    const database = await startCheckoutDatabase(checkout);
    started.postgres.push(database.postgres);
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    started.pools.push(pool);
    for (const line of describeSizes(checkout.label, await reportTableSizes(pool))) log(line);
    const keys = await checkoutReportKeys(checkout, database.url);
    const { server, origin } = await startCheckoutServer(checkout, database.url);
    started.servers.push(server);
    const zones = await takesTimeZone(origin, notes[i]!, keys);
    if (zones) await warnOfZoneStart(pool, notes[i]!);
    sides.push({ checkout, origin, keys, note: notes[i]!, zones });
  }
  return sides;
}

/** Says so when the zoned reads would read UTC days before the zone's start (a seed from before the zone was kept from its first day). */
async function warnOfZoneStart(pool: pg.Pool, note: SeedNote): Promise<void> {
  const { rows } = await pool.query<{ since: string | null }>("SELECT (SELECT since::text FROM report_zones WHERE zone = $1) AS since", [ZONED_READS]);
  const since = rows[0]?.since;
  if (!since || new Date(since) > new Date(`${note.firstDay}T00:00:00Z`)) {
    log(`${ZONED_READS} is ${since ? `kept only from ${since}` : "not kept"}: its reads include UTC days (run npm run bench:seed again)`);
  }
}

async function main(): Promise<number> {
  if (!values.before) {
    console.error("bench:reports:before-after: say which checkout is before: --before <path> (for instance a git worktree of an older commit)");
    return 2;
  }
  if (![REQUESTS, ROUNDS, EVENTS].every((n) => Number.isInteger(n) && n > 0)) {
    console.error("bench:reports:before-after: --requests, --rounds and --events must be whole numbers above 0");
    return 2;
  }
  const before = { label: "before", dir: path.resolve(values.before) };
  const problem = checkoutProblem(before.dir);
  if (problem) {
    console.error(`bench:reports:before-after: cannot run the before side: ${problem}`);
    return 2;
  }
  const started = { postgres: [] as LocalPostgres[], servers: [] as ChildProcess[], pools: [] as pg.Pool[] };
  try {
    const sides = await startSides([before, { label: "after", dir: process.cwd() }], started);
    return await timeSides(sides[0]!, sides[1]!);
  } finally {
    for (const server of started.servers) await stopServer(server);
    for (const pool of started.pools) await pool.end().catch(() => {});
    for (const postgres of started.postgres) await postgres.stop().catch(() => {});
  }
}

/** The rounds, the summary and its printout; 1 when a route missed. */
async function timeSides(before: Side, after: Side): Promise<number> {
  if (!after.zones) log("this checkout's routes take no time_zone: only the UTC reads are compared");
  const list = comparisons(before, after);
  const loads = [loadAverage()];
  log(`load average (1, 5, 15 min) before the rounds: ${loads[0]}`);
  const rounds: number[][][] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const p95s: number[][] = [];
    for (const comparison of list) {
      p95s.push(await p95sInTurns(comparison.variants, REQUESTS));
      log(`round ${r + 1}: ${comparison.route}: ${comparison.variants.map((v, k) => `${v.label} ${p95s.at(-1)![k]} ms`).join(", ")}`);
    }
    rounds.push(p95s);
    loads.push(loadAverage());
    log(`load average after round ${r + 1}: ${loads.at(-1)}`);
  }
  const routes = list.map((comparison, c) => {
    const p95s = rounds.map((round_) => round_[c]!);
    // Each variant against the first; a zoned read (the third) against after's UTC read too.
    const pairs = comparison.variants.flatMap((_, k) =>
      k === 0
        ? []
        : k === 1
          ? [[k, 0]]
          : [
              [k, 0],
              [k, 1],
            ],
    );
    const figures = pairs.map(([k, base]) => summarise(comparison, p95s, k!, base!));
    const first = round(median(p95s.map((r) => r[0]!)));
    log(
      `${comparison.route}: ${comparison.variants[0]!.label} p95 ${first} ms; ${figures
        .map(
          (f) =>
            `${f.variant} ${f.p95_ms} ms, ${f.ratio}× ${f.against}'s (${f.ratio_min}–${f.ratio_max}): ratio ${f.verdict}, p95 ${f.under_p95_target ? "under" : "NOT under"} 50 ms`,
        )
        .join("; ")}`,
    );
    return { route: comparison.route, p95_ms: first, p95_ms_by_round: p95s.map((r) => r[0]!), against_it: figures };
  });
  const result = {
    requests: REQUESTS,
    rounds: ROUNDS,
    events: EVENTS,
    ranges: { before: rangeOf(before.note), after: rangeOf(after.note) },
    load_average: loads,
    routes,
  };
  console.log(JSON.stringify(result, null, 2));
  writeFileSync("bench/results/before-after.json", `${JSON.stringify(result, null, 2)}\n`);
  // The control (health) is not a target: the same code on both sides, it shows the noise.
  const missed = routes
    .slice(1)
    .some((r) => r.against_it.some((f) => f.verdict === "missed" || !f.under_p95_target) || (r.route === "/report/hours" && r.p95_ms >= REPORT_TARGETS.p95Ms));
  return missed ? 1 : 0;
}

// process.exit with the code: embedded-postgres's exit hook would otherwise turn a miss into 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
