// Report jobs are kept REPORT_JOB_RETENTION_DAYS (their expires_at), and an account keeps at most
// TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT finished ones (older ones are expired when it asks for a new
// one): each expired job's file is deleted first, then its row, so a row never outlives the chance
// to find its file again.
import { deleteJobObject, type JobBucket, jobBucket } from "./job-bucket";
import { deleteJobs, selectExpiredJobs } from "./report-jobs.sql";

/** Jobs deleted per upkeep run at most; the next run takes the rest. */
const JOBS_PER_RUN = 1000;

export async function deleteExpiredReportJobs(now: Date, bucket: JobBucket | null = jobBucket()): Promise<number> {
  return deleteJobsAndFiles(await selectExpiredJobs(now, JOBS_PER_RUN), bucket);
}

/** Deletes expired jobs' files, then their rows; a job whose file cannot be deleted now stays for upkeep. */
export async function deleteJobsAndFiles(expired: { id: string; object_key: string | null }[], bucket: JobBucket | null): Promise<number> {
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
