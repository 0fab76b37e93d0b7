// `npm run bench:clickhouse`: ClickHouse as the store, against Postgres as the store, side by side
// in one run (docs/decisions/0042-clickhouse-behind-the-store-seam.md):
//   - settle: settling, shipping included, with ClickHouse as the store, over settling with
//     Postgres as the store (events per second, same processes, same traffic): target ≥ 1.0;
//   - reports: p95 of every report route with 50,000,000 events stored in ClickHouse (the report
//     dataset's 10,000,000 in Postgres, copied 5 times 30 days apart): target < 100 ms each, with
//     the same routes with Postgres as the store beside it (report-latency.ts);
//   - freshness: from a beacon's 202 to its count in a report, ClickHouse as the store: p95 < 5 s;
//   - bound: Postgres's size with 10 × the history (50,000,000 events over 150 days against
//     5,000,000 over the 15 days inside the decision horizon, the same traffic a day), generated
//     straight into Postgres day by day with the real upkeep between: ≤ 1.2 with ClickHouse as the
//     store, and the same ratio with Postgres as the store beside it (postgres-bound.ts).
// Options: -- --only settle,reports,freshness,bound (the phases to run, default all), --events N (per
// settle round, default 200,000), --advertisers N (64), --workers N (settle processes, 1),
// --rounds N (3), --requests N (per report route, 100), --copies N (5), --samples N (freshness, 40),
// --bound-events N (the small case, 5,000,000), --bound-growth N (10).
// Prints the figures as JSON; exits 1 when a target is missed.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { log } from "../lib/stack";
import { measureFreshness } from "./freshness";
import { measureBound } from "./postgres-bound";
import { measureReports } from "./report-latency";
import { measureSettling } from "./settle-throughput";

const { values } = parseArgs({
  options: {
    only: { type: "string", default: "settle,reports,freshness,bound" },
    "bound-events": { type: "string", default: "5000000" },
    "bound-growth": { type: "string", default: "10" },
    events: { type: "string", default: "200000" },
    requests: { type: "string", default: "100" },
    copies: { type: "string", default: "5" },
    samples: { type: "string", default: "40" },
    advertisers: { type: "string", default: "64" },
    workers: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
  },
});
const phases = new Set(values.only.split(","));
// One process per phase: each points the domain code at a database of its own, and the
// environment is read once per process.
if (phases.size > 1) {
  let failed = false;
  for (const phase of phases) {
    const args = process.argv.slice(2).filter((arg, i, all) => arg !== "--only" && all[i - 1] !== "--only" && !arg.startsWith("--only="));
    const child = spawnSync(process.execPath, ["--import", "tsx", "bench/clickhouse/run.ts", ...args, "--only", phase], { stdio: "inherit" });
    if (child.status !== 0) failed = true;
  }
  process.exit(failed ? 1 : 0);
}
const figures: Record<string, unknown> = {};
let missed = false;
const verdict = (name: string, met: boolean, line: string) => {
  if (!met) missed = true;
  log(`${met ? "PASS" : "FAIL"} ${name}: ${line}`);
};

if (phases.has("settle")) {
  const settle = await measureSettling({
    events: Number(values.events),
    advertisers: Number(values.advertisers),
    workers: Number(values.workers),
    rounds: Number(values.rounds),
  });
  figures.settle = settle;
  const spread = (rates: number[]) => `${Math.min(...rates).toLocaleString("en")}–${Math.max(...rates).toLocaleString("en")}`;
  verdict(
    "settle",
    settle.ratio >= 1 && settle.shippedRowsInClickhouse === settle.eventsInPostgres,
    `ClickHouse ${spread(settle.clickhouse)} events/s, Postgres ${spread(settle.postgres)} events/s; median ratio ${settle.ratio.toFixed(2)} (target ≥ 1.0); ${settle.shippedRowsInClickhouse.toLocaleString("en")} rows in ClickHouse for ${settle.eventsInPostgres.toLocaleString("en")} settled`,
  );
}

if (phases.has("reports")) {
  const reports = await measureReports({ requests: Number(values.requests), copies: Number(values.copies) });
  figures.reports = reports;
  for (const route of reports.routes) {
    verdict(
      `reports ${route.route}`,
      route.clickhouse_p95_ms < 100,
      `p95 ${route.clickhouse_p95_ms} ms from ClickHouse at ${reports.clickhouseEvents.toLocaleString("en")} events (target < 100 ms); from Postgres at ${reports.postgresEvents.toLocaleString("en")} events ${route.postgres_p95_ms} ms`,
    );
  }
}

if (phases.has("freshness")) {
  const freshness = await measureFreshness({ samples: Number(values.samples), timeoutMs: 30_000 });
  figures.freshness = freshness;
  verdict(
    "freshness",
    freshness.p95_ms < 5000,
    `202 to report p95 ${freshness.p95_ms} ms, p50 ${freshness.p50_ms} ms, max ${freshness.max_ms} ms (target p95 < 5,000 ms)`,
  );
}

if (phases.has("bound")) {
  const bound = await measureBound({ smallEvents: Number(values["bound-events"]), growth: Number(values["bound-growth"]), horizonDays: 15 });
  figures.bound = bound;
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  verdict(
    "bound",
    bound.clickhouse.ratio <= 1.2,
    `ClickHouse as the store: Postgres ${mib(bound.clickhouse.large.bytes)} with ${bound.clickhouse.large.events.toLocaleString("en")} events of history, ${mib(bound.clickhouse.small.bytes)} with ${bound.clickhouse.small.events.toLocaleString("en")}: ${bound.clickhouse.ratio.toFixed(2)} (target ≤ 1.2); Postgres as the store: ${mib(bound.postgres.large.bytes)} against ${mib(bound.postgres.small.bytes)}: ${bound.postgres.ratio.toFixed(2)}`,
  );
}

console.log(JSON.stringify(figures, null, 2));
process.exit(missed ? 1 : 0);
