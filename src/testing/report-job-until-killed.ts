// For the report jobs' tests: runs the queued jobs and kills its own process (SIGKILL, as a
// machine that dies or a platform that ends a function) right after the first part of a file is
// uploaded, so the job is left running under a lease, its multipart upload unfinished.
// usage: node --import tsx src/testing/report-job-until-killed.ts
import { runReportJobs } from "@/server/pipeline/report/jobs/run-report-jobs";

await runReportJobs({
  settings: { partBytes: 5 * 1024 * 1024 },
  onPart: () => {
    process.kill(process.pid, "SIGKILL");
  },
});
console.error("the report job finished without being killed");
process.exit(3);
