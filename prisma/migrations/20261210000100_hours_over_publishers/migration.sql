-- An advertiser's hours report summed its month of hourly_advertiser_totals rows, one per
-- publisher an hour (11,504 at the report benchmark's 10,000,000 events), for 168 cells: the sums
-- were most of the statement's 20 ms. The table now keeps, like daily_ad_totals, a row over every
-- publisher too (publisher_id ''), which the writers add beside the publishers' rows, so a read of
-- the advertiser's own hours sums one row an hour (bench/results.md, "Time zones").
-- Those rows are the publishers' rows summed: an order is placed on one publisher, so its
-- distinct orders add up over publishers. The rows of a zone being backfilled (keys 'backfill:…')
-- are summed under their own key like any other.
INSERT INTO "hourly_advertiser_totals" ("zone", "day", "hour", "publisher_id", "advertiser_id", "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events", "session_mismatch_events", "token_reuse_events", "no_user_agent_events", "click_velocity_events", "attributed_items", "conversions", "sales_revenue_micros", "unverified_conversions", "unverified_sales_revenue_micros", "uncredited_conversions", "uncredited_sales_revenue_micros", "conversions_click", "sales_revenue_click_micros", "units_sold_micros", "converted_clicks", "halo_conversions", "halo_sales_revenue_micros", "ntb_conversions", "ntb_sales_revenue_micros")
SELECT "zone", "day", "hour", '', "advertiser_id", sum("impressions"), sum("views"), sum("clicks"), sum("spend_micros"), sum("duplicate_events"), sum("bot_events"), sum("session_mismatch_events"), sum("token_reuse_events"), sum("no_user_agent_events"), sum("click_velocity_events"), sum("attributed_items"), sum("conversions"), sum("sales_revenue_micros"), sum("unverified_conversions"), sum("unverified_sales_revenue_micros"), sum("uncredited_conversions"), sum("uncredited_sales_revenue_micros"), sum("conversions_click"), sum("sales_revenue_click_micros"), sum("units_sold_micros"), sum("converted_clicks"), sum("halo_conversions"), sum("halo_sales_revenue_micros"), sum("ntb_conversions"), sum("ntb_sales_revenue_micros")
  FROM "hourly_advertiser_totals"
 WHERE "publisher_id" <> ''
 GROUP BY "zone", "day", "hour", "advertiser_id";

-- The advertiser index, which carries every figure, puts the publisher before the day: the rows over
-- every publisher, and those of one publisher, lie together.
DROP INDEX "hourly_advertiser_totals_advertiser_id_zone_day_idx";
CREATE INDEX "hourly_advertiser_totals_advertiser_id_zone_day_idx" ON "hourly_advertiser_totals"("advertiser_id", "zone", "publisher_id", "day") INCLUDE ("hour", "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events", "session_mismatch_events", "token_reuse_events", "no_user_agent_events", "click_velocity_events", "attributed_items", "conversions", "sales_revenue_micros", "unverified_conversions", "unverified_sales_revenue_micros", "uncredited_conversions", "uncredited_sales_revenue_micros", "conversions_click", "sales_revenue_click_micros", "units_sold_micros", "converted_clicks", "halo_conversions", "halo_sales_revenue_micros", "ntb_conversions", "ntb_sales_revenue_micros");
