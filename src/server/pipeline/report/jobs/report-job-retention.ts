// Report jobs are kept REPORT_JOB_RETENTION_DAYS (their expires_at): upkeep deletes each expired
// job's file first, then its row, so a row never outlives the chance to find its file again.
import { deleteJobObject, type JobBucket, jobBucket } from "./job-bucket";
import { deleteJobs, selectExpiredJobs } from "./report-jobs.sql";

/** Jobs deleted per upkeep run at most; the next run takes the rest. */
const JOBS_PER_RUN = 1000;

export async function deleteExpiredReportJobs(now: Date, bucket: JobBucket | null = jobBucket()): Promise<number> {
  const expired = await selectExpiredJobs(now, JOBS_PER_RUN);
  const deletable: string[] = [];
  for (const job of expired) {
    if (job.object_key) {
      // Without the bucket the file cannot be deleted: the row waits until it can.
      if (!bucket) continue;
      await deleteJobObject(bucket, job.object_key);
    }
    deletable.push(job.id);
  }
  return deleteJobs(deletable);
}
