// `npm run bench:reports`: latency of every report route as JSON, and a 100,000-row XLSX
// download, against `next start` over the database `npm run bench:seed` filled (seeded first
// with 10,000,000 events when there is none).
//   - Each JSON route answers the large advertiser's (or, for the publisher-side routes, a large
//     publisher's or the network's) report over the 30 seeded days: 10 requests to warm up, then
//     `--requests` (default 200) one after another; p50 and p95 in ms, and p95 as a ratio of
//     GET /api/health's p95 (one trivial query through the same server) measured in the run.
//     Each in UTC (`time_zone=UTC`), with GET /report/hours (weekday × hour) after them; then all
//     of them again in America/Sao_Paulo, the large advertiser's own zone, kept from the first
//     seeded day (seed.ts), each also as a ratio of its p95 in UTC.
//   - The download is /report/advertisers/ads-detailed?download=true for the catalogue advertiser
//     (1,500 ads) over the 30 days; its time to the last byte, its row count (read back with exceljs's
//     streaming reader) and the server's peak resident memory during it (VmHWM of the server's
//     processes, reset just before).
//   - The same report as a report job: POST /report/jobs for ads_detailed as XLSX over 400 days
//     ending on the last seeded day (the rows are the download's: nothing is seeded before), run
//     by a worker process of its own (report-job-worker.ts) into a local S3 (s3rver); its time
//     and the worker's peak resident memory, each as a ratio of the download's measured above.
// Prints the figures as JSON; exits 1 when a target is missed (p95 < 50 ms for every JSON route;
// the download under 10 s and 300 MB; the job under 10 s and its worker under 300 MB, all rows in it).
import { type ChildProcess, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import ExcelJS from "exceljs";
import { freePort, type LocalPostgres } from "@/cli/local/embedded-postgres";
import { LOCAL_S3_CREDENTIALS, type LocalS3, startLocalS3 } from "@/cli/local/local-s3";
import { migrateDeploy } from "@/cli/local/prisma-cli";
import { nextServerArgs } from "@/cli/next-server";
import { UTC } from "@/server/core/time-zones";
import { pgPool } from "@/server/db/pg-pool";
import { BENCH_SIGNING_KEYS } from "../ingest/beacons";
import { ensureProductionBuild, log, startServer, stopServer } from "../lib/stack";
import { readSeedNote, type SeedNote, startBenchDatabase } from "./database";
import { LARGE_ADVERTISER, ZONED_READS } from "./dataset";
import { timeReportJob } from "./report-job-timing";
import { hoursRoute, REPORT_TARGETS, type ReportKeys, reportKeys, reportRoutes, round, timeRequests } from "./timing";

const { values } = parseArgs({ options: { requests: { type: "string", default: "200" } } });
const REQUESTS = Number(values.requests);
const TARGET = REPORT_TARGETS;
const DOWNLOAD = "bench/results/ads-detailed.xlsx";
const JOB_BUCKET_DIR = "bench/results/report-jobs-s3";

/**
 * Every JSON route in UTC, then the hours report, then all of them again in the large advertiser's
 * own zone (ZONED_READS, kept from the first seeded day, so those read the zone's own rows): p50
 * and p95, p95 against health's and, for a zoned read, against the same route's in UTC.
 */
async function timeRoutes(origin: string, range: string, keys: ReportKeys, healthP95: number) {
  const results = [];
  const utcP95 = new Map<string, number>();
  for (const zone of [UTC, ZONED_READS]) {
    for (const [route, path, key] of [...reportRoutes(range, keys, zone), hoursRoute(range, keys, zone)]) {
      const timing = await timeRequests(`${origin}${path}`, key, REQUESTS);
      if (zone === UTC) utcP95.set(route, timing.p95);
      const vsUtc = zone === UTC ? null : round(timing.p95 / utcP95.get(route)!, 2);
      const result = {
        route,
        time_zone: zone,
        p50_ms: timing.p50,
        p95_ms: timing.p95,
        p95_vs_health: round(timing.p95 / healthP95, 2),
        p95_vs_utc: vsUtc,
        met: timing.p95 < TARGET.p95Ms,
      };
      log(
        `${route} in ${zone}: p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms (${result.p95_vs_health}× health${vsUtc === null ? "" : `, ${vsUtc}× in UTC`})${result.met ? "" : "  MISSED"}`,
      );
      results.push(result);
    }
  }
  return results;
}

/** The pid and every descendant of it (next start may fork workers). */
function processTree(pid: number): number[] {
  const children = (p: number): number[] =>
    readdirSync(`/proc/${p}/task`).flatMap((task) => {
      try {
        return readFileSync(`/proc/${p}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  const all = [pid];
  for (let i = 0; i < all.length; i += 1) all.push(...children(all[i]!));
  return all;
}
const memoryKb = (pid: number, field: "VmHWM" | "VmRSS") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
// Writing 5 to clear_refs resets the peak resident set (VmHWM) to the current one (Linux ≥ 4.0).
const resetPeak = (pids: number[]) => {
  for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
};

async function countRows(file: string): Promise<number> {
  let rows = 0;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, { worksheets: "emit", sharedStrings: "cache", styles: "ignore", hyperlinks: "ignore" });
  for await (const worksheet of reader) {
    for await (const _row of worksheet as AsyncIterable<unknown>) rows += 1;
  }
  // The header and the totals row: what is left are the report's rows, as a job counts them.
  return Math.max(0, rows - 2);
}

// Over 80 lines on purpose: the benchmark's steps in the order it runs them, each printing what it measures.
async function main(): Promise<number> {
  let note = readSeedNote();
  if (!note) {
    log("no seeded database yet: running npm run bench:seed (10,000,000 events)");
    if (spawnSync("npm", ["run", "bench:seed"], { stdio: "inherit" }).status !== 0) throw new Error("npm run bench:seed failed");
    note = readSeedNote() as SeedNote;
  }
  log(
    `database: ${note.events.toLocaleString("en")} events over ${note.firstDay} to ${note.lastDay}, ${note.rollupRows.toLocaleString("en")} rollup rows, seeded ${note.seededAt}`,
  );
  await ensureProductionBuild();

  let postgres: LocalPostgres | undefined;
  let server: ChildProcess | undefined;
  let s3: LocalS3 | undefined;
  try {
    const database = await startBenchDatabase();
    postgres = database.postgres;
    log(`migrations: ${await migrateDeploy(database.url)}`);
    process.env.DATABASE_URL = database.url;
    const keys = await reportKeys();
    const { rows } = await pgPool().query<{ zone: string; rows: number }>(
      "SELECT zone, count(*)::int AS rows FROM daily_rollups WHERE advertiser_id = $1 AND day BETWEEN $2::date AND $3::date GROUP BY zone ORDER BY zone",
      [LARGE_ADVERTISER, note.firstDay, note.lastDay],
    );
    log(`the large advertiser's rollup rows in the range: ${rows.map((r) => `${r.rows.toLocaleString("en")} in ${r.zone}`).join(", ")}`);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    s3 = await startLocalS3({ directory: JOB_BUCKET_DIR, buckets: ["bench-report-jobs"] });
    const env = {
      TALLY_REPORT_JOBS_BUCKET: "bench-report-jobs",
      TALLY_REPORT_JOBS_S3_ENDPOINT: s3.endpoint,
      TALLY_REPORT_JOBS_S3_FORCE_PATH_STYLE: "1",
      TALLY_REPORT_JOBS_S3_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
      TALLY_REPORT_JOBS_S3_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
      // The job is run by the bench's own worker process, not by the server's loop.
      TALLY_REPORT_JOBS_INTERVAL_SECONDS: "0",
      DATABASE_URL: database.url,
      BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
      NEXT_TELEMETRY_DISABLED: "1",
      DATABASE_POOL_SIZE: "10",
      NODE_ENV: "production",
      TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
      // Every request is counted by the per-key rate limit, which is set so high that it never refuses.
      TALLY_REPORT_RATE_PER_SECOND: "100000",
    };
    server = await startServer("next start", nextServerArgs("start", "--port", String(port)), env, `${origin}/api/health`);

    const range = `start_date=${note.firstDay}&end_date=${note.lastDay}`;
    const baseline = await timeRequests(`${origin}/api/health`, null, REQUESTS);
    log(`GET /api/health (baseline): p50 ${baseline.p50} ms, p95 ${baseline.p95} ms`);
    const results = await timeRoutes(origin, range, keys, baseline.p95);

    const pids = processTree(server.pid!);
    const rssBeforeMb = pids.reduce((sum, pid) => sum + memoryKb(pid, "VmRSS"), 0) / 1024;
    resetPeak(pids);
    const started = performance.now();
    const response = await fetch(`${origin}/report/advertisers/ads-detailed?${range}&download=true`, {
      headers: { Authorization: `Bearer ${keys.catalogue}` },
    });
    if (response.status !== 200 || !response.body) throw new Error(`the download answered ${response.status}`);
    await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), createWriteStream(DOWNLOAD));
    const seconds = (performance.now() - started) / 1000;
    const peakMb = processTree(server.pid!).reduce((sum, pid) => sum + memoryKb(pid, "VmHWM"), 0) / 1024;
    const xlsxRows = await countRows(DOWNLOAD);
    const xlsx = {
      route: "/report/advertisers/ads-detailed?download=true",
      rows: xlsxRows,
      seconds: round(seconds, 2),
      server_rss_before_mb: Math.round(rssBeforeMb),
      server_peak_rss_mb: Math.round(peakMb),
      met: seconds < TARGET.xlsxSeconds && peakMb < TARGET.xlsxPeakMb && xlsxRows >= TARGET.xlsxRows,
    };
    log(
      `XLSX: ${xlsxRows.toLocaleString("en")} rows in ${xlsx.seconds} s, server peak ${xlsx.server_peak_rss_mb} MB (${xlsx.server_rss_before_mb} MB before)${xlsx.met ? "" : "  MISSED"}`,
    );
    rmSync(DOWNLOAD, { force: true });

    const job = await timeReportJob(origin, keys.catalogue, note.lastDay, { ...process.env, ...env, NODE_ENV: "production" }, xlsx);
    log(
      `report job: ${job.rows.toLocaleString("en")} rows as XLSX in ${job.seconds} s (${job.seconds_vs_download}× the download), worker peak ${job.worker_peak_rss_mb} MB (${job.peak_vs_download}× the server's during the download; ${job.worker_rss_before_mb} MB before), live heap ${job.heap_before_mb} MB before, ${job.heap_live_peak_mb} MB at most; a ${job.file_mb} MB file; again with the worker's old generation capped at ${job.capped_heap_mb} MB: ${job.capped_status}${job.capped_peak_rss_mb === null ? "" : `, peak ${job.capped_peak_rss_mb} MB, live heap ${job.capped_heap_live_peak_mb} MB at most`}${job.met ? "" : "  MISSED"}`,
    );

    console.log(
      JSON.stringify(
        {
          events: note.events,
          range: [note.firstDay, note.lastDay],
          baseline: { route: "/api/health", p50_ms: baseline.p50, p95_ms: baseline.p95 },
          routes: results,
          xlsx,
          job,
          targets: TARGET,
        },
        null,
        2,
      ),
    );
    return results.every((r) => r.met) && xlsx.met && job.met ? 0 : 1;
  } finally {
    if (server) await stopServer(server);
    await s3?.stop().catch(() => {});
    rmSync(JOB_BUCKET_DIR, { recursive: true, force: true });
    await pgPool()
      .end()
      .catch(() => {});
    await postgres?.stop();
    if (existsSync(DOWNLOAD)) rmSync(DOWNLOAD, { force: true });
  }
}

// process.exit with the code: embedded-postgres's exit hook would otherwise turn a miss into 0.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
