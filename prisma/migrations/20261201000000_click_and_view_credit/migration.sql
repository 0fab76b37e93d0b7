-- Click- and view-through credit, units sold and converted clicks in every report table. The new
-- figures of days whose attributions retention still keeps are counted
-- from them below, and older days keep 0 (their orders read as view-through: docs/conversions.md).

-- AlterTable
ALTER TABLE "daily_rollups" ADD COLUMN     "conversions_click" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "converted_clicks" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "sales_revenue_click_micros" DECIMAL(38,0) NOT NULL DEFAULT 0,
ADD COLUMN     "units_sold_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_campaign_totals" ADD COLUMN     "conversions_click" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "converted_clicks" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "sales_revenue_click_micros" DECIMAL(38,0) NOT NULL DEFAULT 0,
ADD COLUMN     "units_sold_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_ad_totals" ADD COLUMN     "conversions_click" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "converted_clicks" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "sales_revenue_click_micros" DECIMAL(38,0) NOT NULL DEFAULT 0,
ADD COLUMN     "units_sold_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_publisher_orders" ADD COLUMN     "conversions_click" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "converted_clicks" (
    "event_id" UUID NOT NULL,
    "event_created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "converted_clicks_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE INDEX "converted_clicks_event_created_at_idx" ON "converted_clicks"("event_created_at");

-- Clicks that have earned credit so far: each counts once from now on.
INSERT INTO "converted_clicks" ("event_id", "event_created_at")
SELECT DISTINCT ON (event_id) event_id, event_created_at FROM attributions WHERE credited AND event_kind = 'click' ORDER BY event_id
ON CONFLICT DO NOTHING;

UPDATE daily_rollups r SET conversions_click = s.conversions_click, sales_revenue_click_micros = s.sales_revenue_click_micros, units_sold_micros = s.units_sold_micros
  FROM (SELECT (placed_at AT TIME ZONE 'UTC')::date AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
               count(DISTINCT conversion_id) FILTER (WHERE credited AND event_kind = 'click') AS conversions_click,
               coalesce(sum(total_value_micros) FILTER (WHERE credited AND event_kind = 'click'), 0) AS sales_revenue_click_micros,
               coalesce(sum(round(quantity * 1000000)) FILTER (WHERE credited), 0) AS units_sold_micros
          FROM attributions GROUP BY (placed_at AT TIME ZONE 'UTC')::date, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name) s
 WHERE r.day = s.day AND r.publisher_id = s.publisher_id AND r.site = s.site AND r.advertiser_id = s.advertiser_id AND r.campaign_id = s.campaign_id AND r.ad_id = s.ad_id AND r.placement_name = s.placement_name;

UPDATE daily_rollups r SET converted_clicks = s.converted_clicks
  FROM (SELECT (event_created_at AT TIME ZONE 'UTC')::date AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name, count(DISTINCT event_id) AS converted_clicks
          FROM attributions WHERE credited AND event_kind = 'click' GROUP BY (event_created_at AT TIME ZONE 'UTC')::date, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name) s
 WHERE r.day = s.day AND r.publisher_id = s.publisher_id AND r.site = s.site AND r.advertiser_id = s.advertiser_id AND r.campaign_id = s.campaign_id AND r.ad_id = s.ad_id AND r.placement_name = s.placement_name;

UPDATE daily_campaign_totals r SET conversions_click = s.conversions_click, sales_revenue_click_micros = s.sales_revenue_click_micros, units_sold_micros = s.units_sold_micros
  FROM (SELECT (placed_at AT TIME ZONE 'UTC')::date AS day, publisher_id, advertiser_id, campaign_id,
               count(DISTINCT conversion_id) FILTER (WHERE credited AND event_kind = 'click') AS conversions_click,
               coalesce(sum(total_value_micros) FILTER (WHERE credited AND event_kind = 'click'), 0) AS sales_revenue_click_micros,
               coalesce(sum(round(quantity * 1000000)) FILTER (WHERE credited), 0) AS units_sold_micros
          FROM attributions GROUP BY (placed_at AT TIME ZONE 'UTC')::date, publisher_id, advertiser_id, campaign_id) s
 WHERE r.day = s.day AND r.publisher_id = s.publisher_id AND r.advertiser_id = s.advertiser_id AND r.campaign_id = s.campaign_id;

UPDATE daily_campaign_totals r SET converted_clicks = s.converted_clicks
  FROM (SELECT (event_created_at AT TIME ZONE 'UTC')::date AS day, publisher_id, advertiser_id, campaign_id, count(DISTINCT event_id) AS converted_clicks
          FROM attributions WHERE credited AND event_kind = 'click' GROUP BY (event_created_at AT TIME ZONE 'UTC')::date, publisher_id, advertiser_id, campaign_id) s
 WHERE r.day = s.day AND r.publisher_id = s.publisher_id AND r.advertiser_id = s.advertiser_id AND r.campaign_id = s.campaign_id;

UPDATE daily_ad_totals r SET conversions_click = s.conversions_click, sales_revenue_click_micros = s.sales_revenue_click_micros, units_sold_micros = s.units_sold_micros
  FROM (SELECT (placed_at AT TIME ZONE 'UTC')::date AS day, advertiser_id, campaign_id, ad_id, CASE WHEN grouping(publisher_id) = 1 THEN '' ELSE publisher_id END AS publisher_id,
               count(DISTINCT conversion_id) FILTER (WHERE credited AND event_kind = 'click') AS conversions_click,
               coalesce(sum(total_value_micros) FILTER (WHERE credited AND event_kind = 'click'), 0) AS sales_revenue_click_micros,
               coalesce(sum(round(quantity * 1000000)) FILTER (WHERE credited), 0) AS units_sold_micros
          FROM attributions GROUP BY GROUPING SETS (((placed_at AT TIME ZONE 'UTC')::date, advertiser_id, campaign_id, ad_id), ((placed_at AT TIME ZONE 'UTC')::date, advertiser_id, campaign_id, ad_id, publisher_id))) s
 WHERE r.day = s.day AND r.advertiser_id = s.advertiser_id AND r.campaign_id = s.campaign_id AND r.ad_id = s.ad_id AND r.publisher_id = s.publisher_id;

UPDATE daily_ad_totals r SET converted_clicks = s.converted_clicks
  FROM (SELECT (event_created_at AT TIME ZONE 'UTC')::date AS day, advertiser_id, campaign_id, ad_id, CASE WHEN grouping(publisher_id) = 1 THEN '' ELSE publisher_id END AS publisher_id, count(DISTINCT event_id) AS converted_clicks
          FROM attributions WHERE credited AND event_kind = 'click' GROUP BY GROUPING SETS (((event_created_at AT TIME ZONE 'UTC')::date, advertiser_id, campaign_id, ad_id), ((event_created_at AT TIME ZONE 'UTC')::date, advertiser_id, campaign_id, ad_id, publisher_id))) s
 WHERE r.day = s.day AND r.advertiser_id = s.advertiser_id AND r.campaign_id = s.campaign_id AND r.ad_id = s.ad_id AND r.publisher_id = s.publisher_id;

UPDATE daily_publisher_orders r SET conversions_click = s.conversions_click
  FROM (SELECT (placed_at AT TIME ZONE 'UTC')::date AS day, publisher_id, CASE WHEN grouping(advertiser_id) = 1 THEN '' ELSE advertiser_id END AS advertiser_id,
               count(DISTINCT conversion_id) FILTER (WHERE credited AND event_kind = 'click') AS conversions_click
          FROM attributions
         GROUP BY GROUPING SETS (((placed_at AT TIME ZONE 'UTC')::date, publisher_id, advertiser_id), ((placed_at AT TIME ZONE 'UTC')::date, publisher_id))) s
 WHERE r.day = s.day AND r.publisher_id = s.publisher_id AND r.advertiser_id = s.advertiser_id;
