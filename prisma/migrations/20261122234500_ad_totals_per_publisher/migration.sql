-- daily_ad_totals also holds each ad's figures per publisher (publisher_id set) beside its figures
-- over every publisher (publisher_id ''): the per-publisher breakdown of ads then needs neither the
-- site and placement rows of daily_rollups nor a distinct count over attributions.
ALTER TABLE "daily_ad_totals" ADD COLUMN "publisher_id" TEXT NOT NULL DEFAULT '';

ALTER TABLE "daily_ad_totals" DROP CONSTRAINT "daily_ad_totals_pkey";

ALTER TABLE "daily_ad_totals" ADD CONSTRAINT "daily_ad_totals_pkey" PRIMARY KEY ("day", "advertiser_id", "campaign_id", "ad_id", "publisher_id");

INSERT INTO "daily_ad_totals" ("day", "advertiser_id", "campaign_id", "ad_id", "publisher_id", "impressions", "views", "clicks", "spend_micros",
                               "duplicate_events", "bot_events", "attributed_items", "conversions", "sales_revenue_micros")
SELECT "day", "advertiser_id", "campaign_id", "ad_id", "publisher_id", coalesce(t.impressions, 0), coalesce(t.views, 0), coalesce(t.clicks, 0),
       coalesce(t.spend_micros, 0), coalesce(t.duplicate_events, 0), coalesce(t.bot_events, 0), coalesce(t.attributed_items, 0),
       coalesce(o.conversions, 0), coalesce(t.sales_revenue_micros, 0)
  FROM (SELECT "day", "advertiser_id", "campaign_id", "ad_id", "publisher_id", sum("impressions") AS impressions, sum("views") AS views,
               sum("clicks") AS clicks, sum("spend_micros") AS spend_micros, sum("duplicate_events") AS duplicate_events,
               sum("bot_events") AS bot_events, sum("attributed_items") AS attributed_items, sum("sales_revenue_micros") AS sales_revenue_micros
          FROM "daily_rollups" GROUP BY 1, 2, 3, 4, 5) t
  FULL JOIN (SELECT ("placed_at" AT TIME ZONE 'UTC')::date AS "day", "advertiser_id", "campaign_id", "ad_id", "publisher_id",
                    count(DISTINCT "conversion_id") AS conversions
               FROM "attributions" GROUP BY 1, 2, 3, 4, 5) o
 USING ("day", "advertiser_id", "campaign_id", "ad_id", "publisher_id");
