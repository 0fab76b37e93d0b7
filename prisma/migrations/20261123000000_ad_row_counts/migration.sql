-- How many rows daily_ad_totals holds per advertiser, day and campaign: over every publisher
-- (ad_rows) and per publisher (ad_publisher_rows). The detailed ad report pages by day and needs
-- each day's row count: summing a few of these rows replaces counting tens of thousands of keys.
-- The beacon and attribution statements add to it when they insert a new daily_ad_totals row.
CREATE TABLE "daily_ad_row_counts" (
    "advertiser_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "ad_rows" BIGINT NOT NULL DEFAULT 0,
    "ad_publisher_rows" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "daily_ad_row_counts_pkey" PRIMARY KEY ("advertiser_id","day","campaign_id")
);

INSERT INTO "daily_ad_row_counts" ("advertiser_id", "day", "campaign_id", "ad_rows", "ad_publisher_rows")
SELECT "advertiser_id", "day", "campaign_id", count(*) FILTER (WHERE "publisher_id" = ''), count(*) FILTER (WHERE "publisher_id" <> '')
  FROM "daily_ad_totals"
 GROUP BY 1, 2, 3;
