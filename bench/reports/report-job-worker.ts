// `npm run bench:reports`'s report job worker: a process of its own, as `npm run worker` is, that
// runs the queued report jobs once and prints, as one JSON line, how long they took and its peak
// resident memory (getrusage's maxrss), its resident memory and JavaScript heap before the first
// job, and the most heap still in use after a full collection while the jobs ran (what they keep
// live, without the garbage V8 has not collected yet).
import { constants, PerformanceObserver } from "node:perf_hooks";
import { closePgPool } from "@/server/db/pg-pool";
import { runReportJobs } from "@/server/pipeline/report/jobs/run-report-jobs";

const MB = 1024 * 1024;
const rssBeforeMb = process.memoryUsage().rss / MB;
const heapBeforeMb = process.memoryUsage().heapUsed / MB;
let heapLivePeakMb = heapBeforeMb;
// Observers hear of a collection just after it, before much more is allocated; only a full
// (mark-compact) collection leaves the old generation without garbage, so only those count.
const collections = new PerformanceObserver((list) => {
  if (list.getEntries().some((entry) => (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR))
    heapLivePeakMb = Math.max(heapLivePeakMb, process.memoryUsage().heapUsed / MB);
});
collections.observe({ entryTypes: ["gc"] });
const started = performance.now();
const jobs = await runReportJobs();
const seconds = (performance.now() - started) / 1000;
collections.disconnect();
await closePgPool();
console.log(JSON.stringify({ jobs, seconds, rssBeforeMb, heapBeforeMb, heapLivePeakMb, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
