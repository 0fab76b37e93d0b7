-- Distinct orders per day and publisher with an item credited to one advertiser's ads, or to any
-- advertiser's (advertiser_id ''), kept by the attribution statement: the advertiser and publisher
-- reports read their order counts here instead of counting distinct orders in attributions.
CREATE TABLE "daily_publisher_orders" (
    "day" DATE NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "conversions" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "daily_publisher_orders_pkey" PRIMARY KEY ("day","publisher_id","advertiser_id")
);

CREATE INDEX "daily_publisher_orders_advertiser_id_day_idx" ON "daily_publisher_orders"("advertiser_id", "day");

INSERT INTO "daily_publisher_orders" ("day", "publisher_id", "advertiser_id", "conversions")
SELECT ("placed_at" AT TIME ZONE 'UTC')::date, "publisher_id", CASE WHEN grouping("advertiser_id") = 1 THEN '' ELSE "advertiser_id" END,
       count(DISTINCT "conversion_id")
  FROM "attributions"
 GROUP BY GROUPING SETS ((("placed_at" AT TIME ZONE 'UTC')::date, "publisher_id", "advertiser_id"), (("placed_at" AT TIME ZONE 'UTC')::date, "publisher_id"));
