// `node --import tsx bench/reports/hours-profile.ts [--runs 100]`: the hours report's statement
// (postgres/hours-report.sql.ts) on the seeded report database (bench:seed), outside the server:
// its plan under EXPLAIN (ANALYZE, BUFFERS) for the large advertiser in UTC and in its own zone,
// then `--runs` timed executions of each (after 10 to warm up), their p50 and p95 in ms, beside
// the same number of `SELECT 1` round trips as the baseline of the connection's own cost.
import { parseArgs } from "node:util";
import { pgPool } from "@/server/db/pg-pool";
import { hoursStatement } from "@/server/store/postgres/hours-report.sql";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { log } from "../lib/stack";
import { readSeedNote, startBenchDatabase } from "./database";
import { LARGE_ADVERTISER, ZONED_READS } from "./dataset";

const { values } = parseArgs({ options: { runs: { type: "string", default: "100" } } });
const RUNS = Number(values.runs);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

async function timed(text: string, params: unknown[]): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 10; i++) {
    const started = performance.now();
    await pgPool().query(text, params);
    if (i >= 10) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(percentile(times, 0.5) * 10) / 10, p95: Math.round(percentile(times, 0.95) * 10) / 10 };
}

async function main(): Promise<void> {
  const note = readSeedNote();
  if (!note) throw new Error("no seeded report database: run npm run bench:seed first");
  const { postgres, url } = await startBenchDatabase();
  process.env.DATABASE_URL = url;
  try {
    log(`SELECT 1: ${JSON.stringify(await timed("SELECT 1", []))}`);
    const scope: ReportScope = { advertiserId: LARGE_ADVERTISER, publisherIds: null, targetedPublisherIds: null };
    for (const zone of ["UTC", ZONED_READS]) {
      const query: ReportQuery<string> = {
        startDate: note.firstDay,
        endDate: note.lastDay,
        zone,
        page: 1,
        perPage: 100,
        orderBy: "",
        order: "asc",
        download: false,
        ids: {},
      };
      const statement = hoursStatement(scope, query, zone);
      const { rows } = await pgPool().query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      log(`${zone}:\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
      log(`${zone} statement: ${JSON.stringify(await timed(statement.text, statement.values))}`);
    }
  } finally {
    await pgPool().end();
    await postgres.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
