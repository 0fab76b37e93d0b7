-- An advertiser's hours report read its month of hourly_advertiser_totals rows (11,456 at the
-- report benchmark's 10,000,000 events) from 7,594 heap pages: every advertiser's rows of an hour
-- are written together, so one advertiser's rows lie about a page apart. The advertiser index now
-- carries every figure, and the read is an index-only scan of the advertiser's own leaf pages
-- (bench/results.md, "Time zones"). It replaces the index it had on the same key.
DROP INDEX "hourly_advertiser_totals_advertiser_id_zone_day_idx";
CREATE INDEX "hourly_advertiser_totals_advertiser_id_zone_day_idx" ON "hourly_advertiser_totals"("advertiser_id", "zone", "day") INCLUDE ("hour", "publisher_id", "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events", "session_mismatch_events", "token_reuse_events", "no_user_agent_events", "click_velocity_events", "attributed_items", "conversions", "sales_revenue_micros", "unverified_conversions", "unverified_sales_revenue_micros", "uncredited_conversions", "uncredited_sales_revenue_micros", "conversions_click", "sales_revenue_click_micros", "units_sold_micros", "converted_clicks", "halo_conversions", "halo_sales_revenue_micros", "ntb_conversions", "ntb_sales_revenue_micros");
