// `node --import tsx bench/clickhouse/route-profile.ts [--runs 40] [--only name,...]`: the report
// routes of bench:clickhouse's report phase (bench/reports/timing.ts, reportRoutes and hoursRoute)
// answered with ClickHouse as the store over its filled chdb folder (bench/results/reports-ch,
// filled by `npm run bench:clickhouse -- --only reports`) and the seeded Postgres, by the route
// handlers themselves in this process: no server, no HTTP, so a change to a read is timed in a
// minute where the phase takes a quarter of an hour. Each route in UTC and in the large
// advertiser's zone, `--runs` times in turns after 5 to warm up; p50 and p95 in ms, beside a
// `SELECT 1` of ClickHouse's as the baseline of a call's own cost. Run with NODE_ENV=development.
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { UTC } from "@/server/core/time-zones";
import { log } from "../lib/stack";
import { readSeedNote, startBenchDatabase } from "../reports/database";
import { ZONED_READS } from "../reports/dataset";
import { hoursRoute, percentile, reportKeys, reportRoutes, round } from "../reports/timing";

const { values } = parseArgs({ options: { runs: { type: "string", default: "40" }, only: { type: "string", default: "" } } });
const RUNS = Number(values.runs);
const FOLDER = path.resolve("bench/results/reports-ch");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** The route file answering `pathname`, and its path parameters. */
async function handlerOf(pathname: string): Promise<{ handler: Handler; params: Record<string, string> }> {
  const campaign = /^\/campaign\/([^/]+)$/.exec(pathname);
  if (campaign && campaign[1] !== "v2") return { handler: (await import("@/app/campaign/[id]/route")).GET as Handler, params: { id: campaign[1]! } };
  const file = `@/app${pathname}/route`;
  return { handler: (await import(file)).GET as Handler, params: {} };
}

async function main(): Promise<void> {
  const seed = readSeedNote();
  if (!seed || !existsSync(FOLDER)) throw new Error("no filled ClickHouse folder: run npm run bench:clickhouse -- --only reports first");
  const { postgres, url } = await startBenchDatabase();
  process.env.DATABASE_URL = url;
  process.env.CLICKHOUSE_URL = `chdb:${FOLDER}`;
  process.env.TALLY_REPORT_RATE_PER_SECOND = "100000";
  process.env.TALLY_REPORT_RATE_BURST = "1000000";
  const { selectRows } = await import("@/server/store/clickhouse/client");
  const { ensureStoreMigrated } = await import("@/server/store/start-store");
  try {
    await ensureStoreMigrated();
    const range = `start_date=${seed.firstDay}&end_date=${seed.lastDay}`;
    const keys = await reportKeys();
    const only = values.only ? values.only.split(",") : null;
    const routes = [UTC, ZONED_READS]
      .flatMap((zone) =>
        [...reportRoutes(range, keys, zone), hoursRoute(range, keys, zone)].map(([name, route, key]) => ({
          name: zone === UTC ? name : `${name} (${zone})`,
          route,
          key,
        })),
      )
      .filter(({ name }) => !only || only.some((part) => name.includes(part)));
    const calls = await Promise.all(
      routes.map(async ({ name, route, key }) => {
        const { handler, params } = await handlerOf(new URL(route, "http://bench").pathname);
        return {
          name,
          call: async () => {
            const response = await handler(new Request(new URL(route, "http://bench"), { headers: { Authorization: `Bearer ${key}` } }), {
              params: Promise.resolve(params),
            });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`${route} answered ${response.status}`);
          },
        };
      }),
    );
    calls.unshift({ name: "ClickHouse SELECT 1", call: async () => void (await selectRows("SELECT 1")) });
    const times = calls.map(() => [] as number[]);
    for (let i = 0; i < RUNS + 5; i++) {
      for (const [n, { call }] of calls.entries()) {
        const started = performance.now();
        await call();
        if (i >= 5) times[n]!.push(performance.now() - started);
      }
    }
    for (const [n, { name }] of calls.entries()) {
      const sorted = times[n]!.sort((a, b) => a - b);
      log(`${name}: p50 ${round(percentile(sorted, 50))} ms, p95 ${round(percentile(sorted, 95))} ms`);
    }
  } finally {
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
