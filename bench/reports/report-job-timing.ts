// The report benchmark's report job (`npm run bench:reports`): the catalogue advertiser's detailed ad
// report as a 400-day XLSX job, run by a worker process of its own (report-job-worker.ts), its time
// and peak memory against the download's; then again with the worker's old generation capped.
import { addDays } from "@/server/core/days";
import { log, runBenchChild } from "../lib/stack";
import { round, REPORT_TARGETS as TARGET } from "./timing";

/**
 * Asks for the download's report as a 400-day XLSX job, runs it in a worker process of its own,
 * and compares its time and the worker's peak memory with the download's.
 */
export async function timeReportJob(
  origin: string,
  key: string,
  lastDay: string,
  env: NodeJS.ProcessEnv,
  download: { rows: number; seconds: number; server_peak_rss_mb: number },
) {
  const asked = await fetch(`${origin}/report/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: jobBody(lastDay),
  });
  if (asked.status !== 202) throw new Error(`POST /report/jobs answered ${asked.status}: ${await asked.text()}`);
  const { id } = ((await asked.json()) as { data: { id: string } }).data;
  const ran = await runJobWorker(env);
  const done = ran.jobs.find((j) => j.id === id);
  if (done?.status !== "done") throw new Error(`the report job did not finish: ${JSON.stringify(ran.jobs)}`);

  // The same job again with the worker's old generation capped at what the worker held before
  // its first job plus JOB_HEAP_ROOM_MB: a job that read its rows whole (over 100 MB of row objects
  // at this size) or held its file cannot fit, one that streams batch by batch does. Derived from
  // this machine's own figure, so a bigger Node.js or more code loaded at start does not fail it.
  const heapCapMb = Math.ceil(ran.heapBeforeMb) + JOB_HEAP_ROOM_MB;
  log(
    `report job again, the worker's old generation capped at ${heapCapMb} MB: the ${Math.round(ran.heapBeforeMb)} MB it held before its first job + ${JOB_HEAP_ROOM_MB} MB of room for one job's batches (its live heap peaked at ${Math.round(ran.heapLivePeakMb)} MB uncapped, after full collections)`,
  );
  const again = await fetch(`${origin}/report/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: jobBody(lastDay),
  });
  const againId = ((await again.json()) as { data: { id: string } }).data.id;
  const capped = await runCappedJobWorker({ ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ""} --max-old-space-size=${heapCapMb}`.trim() });
  const cappedDone = "jobs" in capped ? capped.jobs.find((j) => j.id === againId) : undefined;
  return {
    report: "ads_detailed as XLSX, 400 days",
    rows: done.rows,
    file_mb: round(done.bytes / 1024 / 1024, 1),
    heap_before_mb: Math.round(ran.heapBeforeMb),
    heap_live_peak_mb: Math.round(ran.heapLivePeakMb),
    capped_heap_mb: heapCapMb,
    capped_status: "jobs" in capped ? (cappedDone?.status ?? "not run") : capped.died,
    capped_heap_live_peak_mb: "jobs" in capped ? Math.round(capped.heapLivePeakMb) : null,
    capped_peak_rss_mb: "jobs" in capped ? Math.round(capped.peakRssMb) : null,
    seconds: round(ran.seconds, 2),
    seconds_vs_download: round(ran.seconds / download.seconds, 2),
    worker_rss_before_mb: Math.round(ran.rssBeforeMb),
    worker_peak_rss_mb: Math.round(ran.peakRssMb),
    peak_vs_download: round(ran.peakRssMb / download.server_peak_rss_mb, 2),
    met: ran.seconds < TARGET.xlsxSeconds && ran.peakRssMb < TARGET.xlsxPeakMb && done.rows === download.rows && cappedDone?.status === "done",
  };
}

// Room over the worker's heap before its first job, for one job's working set: two read batches of 1,000 rows, the XML of
// 250 rows and what is alive mid-batch when a collection runs. Full collections found up to 15 MB over the start mid-job
// (bench/results.md): 24 MB leaves room, far below the 100 MB and more that rows read whole would take.
const JOB_HEAP_ROOM_MB = 24;

const jobBody = (lastDay: string) => JSON.stringify({ report: "ads_detailed", start_date: addDays(lastDay, -399), end_date: lastDay, format: "xlsx" });

interface JobWorkerRun {
  jobs: { id: string; status: string; rows: number; bytes: number }[];
  seconds: number;
  rssBeforeMb: number;
  heapBeforeMb: number;
  heapLivePeakMb: number;
  peakRssMb: number;
}

/** Runs the queued report jobs in a worker process of its own, as `npm run worker` would. */
async function runJobWorker(env: NodeJS.ProcessEnv): Promise<JobWorkerRun> {
  const run = await runCappedJobWorker(env);
  if ("died" in run) throw new Error(`the report job worker ${run.died}`);
  return run;
}

/** The same, but a worker that dies (out of heap) is an outcome to report, not the bench's end. */
async function runCappedJobWorker(env: NodeJS.ProcessEnv): Promise<JobWorkerRun | { died: string }> {
  const worker = await runBenchChild("bench/reports/report-job-worker.ts", [], env);
  if (worker.status !== 0) return { died: worker.status === null ? "was ended by a signal (V8 aborts a process out of heap)" : `exited with ${worker.status}` };
  // Tally's log lines share stdout, and may be flushed after the worker's figures.
  const figures = worker.stdout
    .trim()
    .split("\n")
    .findLast((line) => line.startsWith('{"jobs":'));
  if (!figures) throw new Error("the report job worker printed no figures");
  return JSON.parse(figures) as JobWorkerRun;
}
