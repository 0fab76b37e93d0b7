-- CreateIndex
CREATE INDEX "advertiser_daily_spend_day_spend_micros_idx" ON "advertiser_daily_spend"("day" DESC, "spend_micros" DESC);
