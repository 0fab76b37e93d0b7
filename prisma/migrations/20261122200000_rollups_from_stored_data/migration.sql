-- From this release on, the writers of ad_events and attributions keep daily_rollups current in
-- their own transactions. This builds the report rows of the data stored before, once, with the
-- same recount that `npm run rollups:verify` compares against.
DELETE FROM "daily_rollups";

INSERT INTO "daily_rollups" ("day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name",
                             "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events",
                             "attributed_items", "conversions", "sales_revenue_micros")
SELECT "day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name",
       coalesce(e.impressions, 0), coalesce(e.views, 0), coalesce(e.clicks, 0), coalesce(e.spend_micros, 0),
       coalesce(e.duplicate_events, 0), coalesce(e.bot_events, 0),
       coalesce(c.attributed_items, 0), coalesce(c.conversions, 0), coalesce(c.sales_revenue_micros, 0)
  FROM (SELECT ("created_at" AT TIME ZONE 'UTC')::date AS "day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name",
               count(*) FILTER (WHERE "status" = 'counted' AND "kind" = 'impression') AS impressions,
               count(*) FILTER (WHERE "status" = 'counted' AND "kind" = 'view') AS views,
               count(*) FILTER (WHERE "status" = 'counted' AND "kind" = 'click') AS clicks,
               sum("spend_micros") AS spend_micros,
               count(*) FILTER (WHERE "status" = 'duplicate') AS duplicate_events,
               count(*) FILTER (WHERE "status" = 'bot') AS bot_events
          FROM "ad_events"
         GROUP BY 1, 2, 3, 4, 5, 6, 7) e
  FULL JOIN
       (SELECT ("placed_at" AT TIME ZONE 'UTC')::date AS "day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name",
               count(*) AS attributed_items, count(DISTINCT "conversion_id") AS conversions, sum("total_value_micros") AS sales_revenue_micros
          FROM "attributions"
         GROUP BY 1, 2, 3, 4, 5, 6, 7) c
 USING ("day", "publisher_id", "site", "advertiser_id", "campaign_id", "ad_id", "placement_name");
