// `node --import tsx bench/reports/statement-profile.ts [--report hours|ads-detailed|campaigns-detailed|advertisers] [--runs 100]`:
// one report's statement (postgres/hours-report.sql.ts, postgres/detailed-report.sql.ts) on the
// seeded report database (bench:seed), outside the server: its plan under EXPLAIN (ANALYZE,
// BUFFERS) for the large advertiser (advertisers: the large publisher) over the seeded month in UTC and in its own zone (the zone's
// start known, as a report route knows it), then `--runs` timed executions of each in turns (after
// 10 to warm up), their p50 and p95 in ms and the zone's p50 over UTC's, beside the same number of
// `SELECT 1` round trips as the baseline of the connection's own cost.
import { parseArgs } from "node:util";
import sql, { type Sql } from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { advertiserReportStatement } from "@/server/store/postgres/advertiser-report.sql";
import { adsDetailedStatement, campaignsDetailedStatement } from "@/server/store/postgres/detailed-report.sql";
import { hoursStatement } from "@/server/store/postgres/hours-report.sql";
import { readableReportZones } from "@/server/store/postgres/report-zone.sql";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { AdvertiserReportOrderBy, DetailedReportOrderBy } from "@/server/store/report-rows";
import { log } from "../lib/stack";
import { readSeedNote, startBenchDatabase } from "./database";
import { LARGE_ADVERTISER, LARGE_PUBLISHER, ZONED_READS } from "./dataset";
import { percentile } from "./timing";

const { values } = parseArgs({ options: { runs: { type: "string", default: "100" }, report: { type: "string", default: "hours" } } });
const RUNS = Number(values.runs);

/** The statement of `report` as its route runs it: the first page of 50 rows, default order. */
function statementOf(report: string, scope: ReportScope, query: ReportQuery<string>, zone: string): Sql {
  if (report === "hours") return hoursStatement(scope, query, zone);
  if (report === "advertisers") {
    const publisher: ReportScope = { advertiserId: null, publisherIds: [LARGE_PUBLISHER], targetedPublisherIds: [LARGE_PUBLISHER] };
    return advertiserReportStatement(publisher, {
      ...query,
      orderBy: "impressions_total",
      order: "desc",
      perPage: 50,
    } as ReportQuery<AdvertiserReportOrderBy>).sql(50, 0);
  }
  const detailed = { ...query, orderBy: "day", order: "desc", perPage: 50 } as ReportQuery<DetailedReportOrderBy>;
  if (report === "ads-detailed") return adsDetailedStatement(scope, detailed).sql(50, 0);
  if (report === "campaigns-detailed") return campaignsDetailedStatement(scope, detailed).sql(50, 0);
  throw new Error(`--report: hours, ads-detailed, campaigns-detailed or advertisers, not ${report}`);
}

/** Each statement run RUNS times, one of each in turn (after 10 turns to warm up). */
async function timedInTurns(statements: Sql[]): Promise<{ p50: number; p95: number }[]> {
  const times = statements.map(() => [] as number[]);
  for (let i = 0; i < RUNS + 10; i++) {
    for (const [n, statement] of statements.entries()) {
      const started = performance.now();
      await pgPool().query(statement.text, statement.values);
      if (i >= 10) times[n]!.push(performance.now() - started);
    }
  }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    return { p50: Math.round(percentile(list, 50) * 10) / 10, p95: Math.round(percentile(list, 95) * 10) / 10 };
  });
}

async function main(): Promise<void> {
  const note = readSeedNote();
  if (!note) throw new Error("no seeded report database: run npm run bench:seed first");
  const { postgres, url } = await startBenchDatabase();
  process.env.DATABASE_URL = url;
  try {
    log(`SELECT 1: ${JSON.stringify((await timedInTurns([sql`SELECT 1`]))[0])}`);
    const scope: ReportScope = { advertiserId: LARGE_ADVERTISER, publisherIds: null, targetedPublisherIds: null };
    await readableReportZones();
    const statements = ["UTC", ZONED_READS].map((zone) => {
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
      return { zone, statement: statementOf(values.report, scope, query, zone) };
    });
    for (const { zone, statement } of statements) {
      const { rows } = await pgPool().query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      log(`${values.report}, ${zone}:\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
    const times = await timedInTurns(statements.map(({ statement }) => statement));
    for (const [i, { zone }] of statements.entries()) log(`${values.report}, ${zone} statement: ${JSON.stringify(times[i])}`);
    log(`${values.report}: ${ZONED_READS} p50 ${(times[1]!.p50 / times[0]!.p50).toFixed(2)} × UTC's`);
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
