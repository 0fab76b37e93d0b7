// `npm run bench:reports`'s report job worker: a process of its own, as `npm run worker` is, that
// runs the queued report jobs once and prints, as one JSON line, how long they took and its peak
// resident memory (getrusage's maxrss), and its resident memory and JavaScript heap before the first job.
import { closePgPool } from "@/server/db/pg-pool";
import { runReportJobs } from "@/server/pipeline/report/jobs/run-report-jobs";

const rssBeforeMb = process.memoryUsage().rss / 1024 / 1024;
const heapBeforeMb = process.memoryUsage().heapUsed / 1024 / 1024;
const started = performance.now();
const jobs = await runReportJobs();
const seconds = (performance.now() - started) / 1000;
await closePgPool();
console.log(JSON.stringify({ jobs, seconds, rssBeforeMb, heapBeforeMb, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
