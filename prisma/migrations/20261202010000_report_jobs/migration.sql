-- Report jobs: long reports written by workers to the operator's bucket (docs/report-jobs.md).
-- CreateEnum
CREATE TYPE "ReportJobStatus" AS ENUM ('queued', 'running', 'done', 'failed');

-- CreateTable
CREATE TABLE "report_jobs" (
    "id" TEXT NOT NULL,
    "account_id" TEXT,
    "requested_by" TEXT NOT NULL,
    "report" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "start_date" TEXT NOT NULL,
    "end_date" TEXT NOT NULL,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "order_by" TEXT NOT NULL,
    "order" TEXT NOT NULL,
    "status" "ReportJobStatus" NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lease_token" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "object_key" TEXT,
    "rows" BIGINT,
    "bytes" BIGINT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "report_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "report_jobs_account_id_created_at_idx" ON "report_jobs"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "report_jobs_status_lease_until_idx" ON "report_jobs"("status", "lease_until");

-- CreateIndex
CREATE INDEX "report_jobs_expires_at_idx" ON "report_jobs"("expires_at");

-- AddForeignKey
ALTER TABLE "report_jobs" ADD CONSTRAINT "report_jobs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

