import { type IntervalJob, startIntervalJob } from "@/server/core/interval-job";
import { jobLog } from "@/server/core/log";
import { runReportJobs } from "./run-report-jobs";

/**
 * Runs queued report jobs every `intervalMs` inside a long-running server or `npm run worker`: the
 * same work as GET /api/cron/report-jobs on Vercel. Each job is taken under its row's lock and
 * held by a lease, so any number of processes share them.
 */
export function startReportJobLoop(intervalMs: number, log: (line: string) => void = jobLog("report-jobs")): IntervalJob {
  return startIntervalJob({
    name: "report-jobs",
    intervalMs,
    firstDelayMs: 2_000,
    log,
    run: async () => {
      for (const job of await runReportJobs({ budgetMs: Math.max(60_000, intervalMs * 5) })) {
        log(
          `tally: report job ${job.id}: ${job.status}${job.status === "done" ? `, ${job.rows} rows, ${job.bytes} bytes` : job.error ? ` (${job.error})` : ""}`,
        );
      }
    },
  });
}
