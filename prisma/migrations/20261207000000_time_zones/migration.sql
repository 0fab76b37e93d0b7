-- Days in each account's time zone (docs/decisions/0051-days-in-each-accounts-time-zone.md).
--
-- An account reads, budgets and exports in its own IANA zone, UTC until changed. The report
-- tables are keyed by zone as well as day: the writers add each batch once per zone in
-- report_zones (UTC and every zone an account or the operator reads in), each row's day the local
-- date of the event in that zone, so a report in any kept zone reads as many rows as a UTC report
-- did. A zone's rows hold exactly the events from its `since` on, and a report in that zone reads the
-- UTC rows of the days before (whole UTC days, ending at `since`, a UTC midnight) and says so.
-- Upkeep moves `since` back a UTC day at a time while those days are still held raw.
--
-- The hourly tables key the same figures by local hour too, for the hours report (dayparting):
-- rows from `hours_since` on, in every kept zone.

ALTER TABLE "accounts" ADD COLUMN "time_zone" TEXT NOT NULL DEFAULT 'UTC';

CREATE TABLE "report_zones" (
    "zone" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "hours_since" TIMESTAMPTZ(3) NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "report_zones_pkey" PRIMARY KEY ("zone")
);
-- UTC holds every day. Its hours start at the next whole hour after this migration, and the hours
-- report says from when.
INSERT INTO "report_zones" ("zone", "since", "hours_since") VALUES ('UTC', '1970-01-01T00:00:00Z', date_trunc('hour', CURRENT_TIMESTAMP) + interval '1 hour');

-- The report tables: zone first in every key.
ALTER TABLE "daily_rollups" ADD COLUMN "zone" TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE "daily_rollups" DROP CONSTRAINT "daily_rollups_pkey";
ALTER TABLE "daily_rollups" ADD CONSTRAINT "daily_rollups_pkey" PRIMARY KEY ("zone", "day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name");
DROP INDEX "daily_rollups_advertiser_id_day_idx";
DROP INDEX "daily_rollups_campaign_id_day_idx";
DROP INDEX "daily_rollups_publisher_id_day_idx";
DROP INDEX "daily_rollups_ad_id_day_idx";
CREATE INDEX "daily_rollups_advertiser_id_zone_day_idx" ON "daily_rollups"("advertiser_id", "zone", "day");
CREATE INDEX "daily_rollups_campaign_id_zone_day_idx" ON "daily_rollups"("campaign_id", "zone", "day");
CREATE INDEX "daily_rollups_publisher_id_zone_day_idx" ON "daily_rollups"("publisher_id", "zone", "day");
CREATE INDEX "daily_rollups_ad_id_zone_day_idx" ON "daily_rollups"("ad_id", "zone", "day");

ALTER TABLE "daily_campaign_totals" ADD COLUMN "zone" TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE "daily_campaign_totals" DROP CONSTRAINT "daily_campaign_totals_pkey";
ALTER TABLE "daily_campaign_totals" ADD CONSTRAINT "daily_campaign_totals_pkey" PRIMARY KEY ("zone", "day", "publisher_id", "advertiser_id", "campaign_id");
DROP INDEX "daily_campaign_totals_advertiser_id_day_idx";
DROP INDEX "daily_campaign_totals_publisher_id_day_idx";
DROP INDEX "daily_campaign_totals_campaign_id_day_idx";
CREATE INDEX "daily_campaign_totals_advertiser_id_zone_day_idx" ON "daily_campaign_totals"("advertiser_id", "zone", "day");
CREATE INDEX "daily_campaign_totals_publisher_id_zone_day_idx" ON "daily_campaign_totals"("publisher_id", "zone", "day");
CREATE INDEX "daily_campaign_totals_campaign_id_zone_day_idx" ON "daily_campaign_totals"("campaign_id", "zone", "day");

ALTER TABLE "daily_ad_totals" ADD COLUMN "zone" TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE "daily_ad_totals" DROP CONSTRAINT "daily_ad_totals_pkey";
ALTER TABLE "daily_ad_totals" ADD CONSTRAINT "daily_ad_totals_pkey" PRIMARY KEY ("zone", "day", "advertiser_id", "campaign_id", "ad_id", "publisher_id");
DROP INDEX "daily_ad_totals_advertiser_id_day_idx";
DROP INDEX "daily_ad_totals_campaign_id_day_idx";
CREATE INDEX "daily_ad_totals_advertiser_id_zone_day_idx" ON "daily_ad_totals"("advertiser_id", "zone", "day");
CREATE INDEX "daily_ad_totals_campaign_id_zone_day_idx" ON "daily_ad_totals"("campaign_id", "zone", "day");

ALTER TABLE "daily_publisher_orders" ADD COLUMN "zone" TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE "daily_publisher_orders" DROP CONSTRAINT "daily_publisher_orders_pkey";
ALTER TABLE "daily_publisher_orders" ADD CONSTRAINT "daily_publisher_orders_pkey" PRIMARY KEY ("zone", "day", "publisher_id", "advertiser_id");
DROP INDEX "daily_publisher_orders_advertiser_id_day_idx";
CREATE INDEX "daily_publisher_orders_advertiser_id_zone_day_idx" ON "daily_publisher_orders"("advertiser_id", "zone", "day");

ALTER TABLE "daily_ad_row_counts" ADD COLUMN "zone" TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE "daily_ad_row_counts" DROP CONSTRAINT "daily_ad_row_counts_pkey";
ALTER TABLE "daily_ad_row_counts" ADD CONSTRAINT "daily_ad_row_counts_pkey" PRIMARY KEY ("advertiser_id", "zone", "day", "campaign_id");

-- Dayparting: daily_campaign_totals' figures per local hour (0-23) too, and the distinct orders
-- per publisher and advertiser ('' for every advertiser) at the same grain.
CREATE TABLE "hourly_campaign_totals" (LIKE "daily_campaign_totals" INCLUDING DEFAULTS);
ALTER TABLE "hourly_campaign_totals" ADD COLUMN "hour" SMALLINT NOT NULL;
ALTER TABLE "hourly_campaign_totals" ADD CONSTRAINT "hourly_campaign_totals_pkey" PRIMARY KEY ("zone", "day", "hour", "publisher_id", "advertiser_id", "campaign_id");
ALTER TABLE "hourly_campaign_totals" ADD CONSTRAINT "hourly_campaign_totals_hour_check" CHECK ("hour" BETWEEN 0 AND 23);
CREATE INDEX "hourly_campaign_totals_advertiser_id_zone_day_idx" ON "hourly_campaign_totals"("advertiser_id", "zone", "day");
CREATE INDEX "hourly_campaign_totals_publisher_id_zone_day_idx" ON "hourly_campaign_totals"("publisher_id", "zone", "day");
CREATE INDEX "hourly_campaign_totals_campaign_id_zone_day_idx" ON "hourly_campaign_totals"("campaign_id", "zone", "day");

CREATE TABLE "hourly_publisher_orders" (LIKE "daily_publisher_orders" INCLUDING DEFAULTS);
ALTER TABLE "hourly_publisher_orders" ADD COLUMN "hour" SMALLINT NOT NULL;
ALTER TABLE "hourly_publisher_orders" ADD CONSTRAINT "hourly_publisher_orders_pkey" PRIMARY KEY ("zone", "day", "hour", "publisher_id", "advertiser_id");
ALTER TABLE "hourly_publisher_orders" ADD CONSTRAINT "hourly_publisher_orders_hour_check" CHECK ("hour" BETWEEN 0 AND 23);
CREATE INDEX "hourly_publisher_orders_advertiser_id_zone_day_idx" ON "hourly_publisher_orders"("advertiser_id", "zone", "day");
