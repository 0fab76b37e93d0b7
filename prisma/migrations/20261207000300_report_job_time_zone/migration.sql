-- A report job reads its range as local dates of a time zone (docs/report-jobs.md): the one asked
-- for (time_zone), else its account's at the time of asking. Jobs asked for before were read in UTC.
ALTER TABLE "report_jobs" ADD COLUMN "time_zone" TEXT NOT NULL DEFAULT 'UTC';
