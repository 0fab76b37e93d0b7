-- The activity log read per account and per campaign, newest first: keyset pages walk id downwards.
DROP INDEX "activity_log_account_id_id_idx";

ALTER TABLE "activity_log" ADD COLUMN     "campaign_id" TEXT;

CREATE INDEX "activity_log_account_id_id_idx" ON "activity_log"("account_id", "id" DESC);

CREATE INDEX "activity_log_campaign_id_id_idx" ON "activity_log"("campaign_id", "id" DESC);
