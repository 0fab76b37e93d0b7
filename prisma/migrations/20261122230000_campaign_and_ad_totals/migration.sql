-- Coarser report rows beside daily_rollups, kept by the same writers in the same transactions:
-- per day, publisher, advertiser and campaign, and per day, advertiser, campaign and ad. Reports
-- over a range sum these instead of every site and placement row (and every publisher row, for
-- an advertiser's ads). conversions counts distinct orders at each table's own grain, which adds
-- up over days and publishers (an order has one day and one publisher) but not over campaigns or ads.
CREATE TABLE "daily_campaign_totals" (
    "day" DATE NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "impressions" BIGINT NOT NULL DEFAULT 0,
    "views" BIGINT NOT NULL DEFAULT 0,
    "clicks" BIGINT NOT NULL DEFAULT 0,
    "spend_micros" BIGINT NOT NULL DEFAULT 0,
    "duplicate_events" BIGINT NOT NULL DEFAULT 0,
    "bot_events" BIGINT NOT NULL DEFAULT 0,
    "attributed_items" BIGINT NOT NULL DEFAULT 0,
    "conversions" BIGINT NOT NULL DEFAULT 0,
    "sales_revenue_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "daily_campaign_totals_pkey" PRIMARY KEY ("day","publisher_id","advertiser_id","campaign_id")
);

CREATE TABLE "daily_ad_totals" (
    "day" DATE NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "ad_id" TEXT NOT NULL,
    "impressions" BIGINT NOT NULL DEFAULT 0,
    "views" BIGINT NOT NULL DEFAULT 0,
    "clicks" BIGINT NOT NULL DEFAULT 0,
    "spend_micros" BIGINT NOT NULL DEFAULT 0,
    "duplicate_events" BIGINT NOT NULL DEFAULT 0,
    "bot_events" BIGINT NOT NULL DEFAULT 0,
    "attributed_items" BIGINT NOT NULL DEFAULT 0,
    "conversions" BIGINT NOT NULL DEFAULT 0,
    "sales_revenue_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "daily_ad_totals_pkey" PRIMARY KEY ("day","advertiser_id","campaign_id","ad_id")
);

CREATE INDEX "daily_campaign_totals_advertiser_id_day_idx" ON "daily_campaign_totals"("advertiser_id", "day");

CREATE INDEX "daily_campaign_totals_publisher_id_day_idx" ON "daily_campaign_totals"("publisher_id", "day");

CREATE INDEX "daily_campaign_totals_campaign_id_day_idx" ON "daily_campaign_totals"("campaign_id", "day");

CREATE INDEX "daily_ad_totals_advertiser_id_day_idx" ON "daily_ad_totals"("advertiser_id", "day");

CREATE INDEX "daily_ad_totals_campaign_id_day_idx" ON "daily_ad_totals"("campaign_id", "day");

-- The rows of data stored before: traffic from daily_rollups, orders counted from attributions.
INSERT INTO "daily_campaign_totals" ("day", "publisher_id", "advertiser_id", "campaign_id", "impressions", "views", "clicks", "spend_micros",
                                     "duplicate_events", "bot_events", "attributed_items", "conversions", "sales_revenue_micros")
SELECT "day", "publisher_id", "advertiser_id", "campaign_id", coalesce(t.impressions, 0), coalesce(t.views, 0), coalesce(t.clicks, 0),
       coalesce(t.spend_micros, 0), coalesce(t.duplicate_events, 0), coalesce(t.bot_events, 0), coalesce(t.attributed_items, 0),
       coalesce(o.conversions, 0), coalesce(t.sales_revenue_micros, 0)
  FROM (SELECT "day", "publisher_id", "advertiser_id", "campaign_id", sum("impressions") AS impressions, sum("views") AS views,
               sum("clicks") AS clicks, sum("spend_micros") AS spend_micros, sum("duplicate_events") AS duplicate_events,
               sum("bot_events") AS bot_events, sum("attributed_items") AS attributed_items, sum("sales_revenue_micros") AS sales_revenue_micros
          FROM "daily_rollups" GROUP BY 1, 2, 3, 4) t
  FULL JOIN (SELECT ("placed_at" AT TIME ZONE 'UTC')::date AS "day", "publisher_id", "advertiser_id", "campaign_id", count(DISTINCT "conversion_id") AS conversions
               FROM "attributions" GROUP BY 1, 2, 3, 4) o
 USING ("day", "publisher_id", "advertiser_id", "campaign_id");

INSERT INTO "daily_ad_totals" ("day", "advertiser_id", "campaign_id", "ad_id", "impressions", "views", "clicks", "spend_micros",
                               "duplicate_events", "bot_events", "attributed_items", "conversions", "sales_revenue_micros")
SELECT "day", "advertiser_id", "campaign_id", "ad_id", coalesce(t.impressions, 0), coalesce(t.views, 0), coalesce(t.clicks, 0),
       coalesce(t.spend_micros, 0), coalesce(t.duplicate_events, 0), coalesce(t.bot_events, 0), coalesce(t.attributed_items, 0),
       coalesce(o.conversions, 0), coalesce(t.sales_revenue_micros, 0)
  FROM (SELECT "day", "advertiser_id", "campaign_id", "ad_id", sum("impressions") AS impressions, sum("views") AS views,
               sum("clicks") AS clicks, sum("spend_micros") AS spend_micros, sum("duplicate_events") AS duplicate_events,
               sum("bot_events") AS bot_events, sum("attributed_items") AS attributed_items, sum("sales_revenue_micros") AS sales_revenue_micros
          FROM "daily_rollups" GROUP BY 1, 2, 3, 4) t
  FULL JOIN (SELECT ("placed_at" AT TIME ZONE 'UTC')::date AS "day", "advertiser_id", "campaign_id", "ad_id", count(DISTINCT "conversion_id") AS conversions
               FROM "attributions" GROUP BY 1, 2, 3, 4) o
 USING ("day", "advertiser_id", "campaign_id", "ad_id");
