-- CreateIndex
CREATE INDEX "report_jobs_account_id_started_at_idx" ON "report_jobs"("account_id", "started_at");
