-- The hours report of an advertiser, a publisher or a network summed every campaign's hourly rows:
-- 24 rows a day for each campaign and publisher, 56,960 for a large advertiser's month, read in
-- 99-103 ms (bench/results.md, "Time zones"). hourly_advertiser_totals keeps the same figures per
-- publisher and advertiser, the campaign left out: as many rows as the advertiser has publishers
-- an hour, not campaigns and publishers (11,260 against 33,248 at the 200,000-event seed).
-- Its distinct orders are the advertiser's own per publisher and hour, as hourly_publisher_orders
-- counts them, so it is filled from the campaign rows' sums and those counts (summing campaigns'
-- orders would count an order of two campaigns twice). The writers add every batch to it from now on.
CREATE TABLE "hourly_advertiser_totals" (LIKE "hourly_campaign_totals" INCLUDING DEFAULTS);
ALTER TABLE "hourly_advertiser_totals" DROP COLUMN "campaign_id";
ALTER TABLE "hourly_advertiser_totals" ADD CONSTRAINT "hourly_advertiser_totals_pkey" PRIMARY KEY ("zone", "day", "hour", "publisher_id", "advertiser_id");
ALTER TABLE "hourly_advertiser_totals" ADD CONSTRAINT "hourly_advertiser_totals_hour_check" CHECK ("hour" BETWEEN 0 AND 23);
CREATE INDEX "hourly_advertiser_totals_advertiser_id_zone_day_idx" ON "hourly_advertiser_totals"("advertiser_id", "zone", "day");
CREATE INDEX "hourly_advertiser_totals_publisher_id_zone_day_idx" ON "hourly_advertiser_totals"("publisher_id", "zone", "day");

INSERT INTO "hourly_advertiser_totals" (
  "zone", "day", "hour", "publisher_id", "advertiser_id",
  "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events",
  "session_mismatch_events", "token_reuse_events", "no_user_agent_events", "click_velocity_events",
  "attributed_items", "sales_revenue_micros", "unverified_sales_revenue_micros", "uncredited_sales_revenue_micros",
  "sales_revenue_click_micros", "units_sold_micros", "converted_clicks", "halo_sales_revenue_micros", "ntb_sales_revenue_micros",
  "conversions", "unverified_conversions", "uncredited_conversions", "conversions_click", "halo_conversions", "ntb_conversions")
SELECT t.*, coalesce(o."conversions", 0), coalesce(o."unverified_conversions", 0), coalesce(o."uncredited_conversions", 0),
       coalesce(o."conversions_click", 0), coalesce(o."halo_conversions", 0), coalesce(o."ntb_conversions", 0)
  FROM (SELECT "zone", "day", "hour", "publisher_id", "advertiser_id",
               sum("impressions"), sum("views"), sum("clicks"), sum("spend_micros"), sum("duplicate_events"), sum("bot_events"),
               sum("session_mismatch_events"), sum("token_reuse_events"), sum("no_user_agent_events"), sum("click_velocity_events"),
               sum("attributed_items"), sum("sales_revenue_micros"), sum("unverified_sales_revenue_micros"), sum("uncredited_sales_revenue_micros"),
               sum("sales_revenue_click_micros"), sum("units_sold_micros"), sum("converted_clicks"), sum("halo_sales_revenue_micros"), sum("ntb_sales_revenue_micros")
          FROM "hourly_campaign_totals"
         GROUP BY "zone", "day", "hour", "publisher_id", "advertiser_id") AS t
  LEFT JOIN "hourly_publisher_orders" AS o
    ON o."zone" = t."zone" AND o."day" = t."day" AND o."hour" = t."hour" AND o."publisher_id" = t."publisher_id" AND o."advertiser_id" = t."advertiser_id";
