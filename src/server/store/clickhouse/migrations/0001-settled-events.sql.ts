// Hand-written SQL: settled ad events and attributions as Postgres settled them (one row each, stamped with the
// outbox batch that shipped it), and the report rollups that materialized views keep from them.
// Tenant first in every ORDER BY (reports ask for one advertiser or publisher), months as
// partitions, times as DateTime64(3, 'UTC'), money as Int64 micros (sums as Int128), days in UTC.
// The batch column has a min-max index: batch ids grow with time, so "is batch N here?" reads a
// few granules, which is how a batch older than the deduplication window is checked before it is
// sent again (store/clickhouse/ship-batches.ts).
import type { Schema } from "../schema";

// Over 80 lines on purpose: the migration's statements, one per table and view, in the order they are applied.
export function statements(s: Schema): string[] {
  const events = s.local("ad_events");
  const attributions = s.local("attributions");
  const rollups = s.local("report_rollups");
  return [
    `CREATE TABLE IF NOT EXISTS ${events}${s.onCluster} (
       event_id UUID,
       kind LowCardinality(String),
       status LowCardinality(String),
       session_id String,
       user_id Nullable(String),
       ad_id String,
       campaign_id String,
       advertiser_id LowCardinality(String),
       publisher_id LowCardinality(String),
       request_id String,
       ad_type LowCardinality(String),
       ad_size LowCardinality(Nullable(String)),
       placement_name LowCardinality(String),
       context LowCardinality(String),
       site LowCardinality(String),
       spend_micros Int64,
       user_agent Nullable(String),
       client_hash Nullable(String),
       created_at DateTime64(3, 'UTC'),
       batch_id UInt64,
       INDEX batch_minmax batch_id TYPE minmax GRANULARITY 1,
       CONSTRAINT spend_not_negative CHECK spend_micros >= 0
     ) ENGINE = ${s.engine("MergeTree", "ad_events")}
     PARTITION BY toYYYYMM(created_at)
     ORDER BY (advertiser_id, toDate(created_at), campaign_id, ad_id, event_id)
     SETTINGS ${s.deduplication}`,
    ...s.distributed("ad_events", "cityHash64(advertiser_id)"),

    `CREATE TABLE IF NOT EXISTS ${attributions}${s.onCluster} (
       conversion_id UUID,
       conversion_received_at DateTime64(3, 'UTC'),
       item_position UInt32,
       publisher_id LowCardinality(String),
       order_id String,
       session_id String,
       user_id String,
       product_sku String,
       event_id UUID,
       event_kind LowCardinality(String),
       ad_id String,
       campaign_id String,
       advertiser_id LowCardinality(String),
       request_id String,
       ad_size LowCardinality(Nullable(String)),
       ad_type LowCardinality(String),
       placement_name LowCardinality(String),
       context LowCardinality(String),
       site LowCardinality(String),
       event_created_at DateTime64(3, 'UTC'),
       placed_at DateTime64(3, 'UTC'),
       price_micros Int64,
       promotional_price_micros Int64,
       quantity Float64,
       total_value_micros Int64,
       verified Bool,
       credited Bool,
       created_at DateTime64(3, 'UTC'),
       batch_id UInt64,
       INDEX batch_minmax batch_id TYPE minmax GRANULARITY 1
     ) ENGINE = ${s.engine("MergeTree", "attributions")}
     PARTITION BY toYYYYMM(placed_at)
     ORDER BY (advertiser_id, toDate(placed_at), campaign_id, conversion_id, item_position)
     SETTINGS ${s.deduplication}`,
    ...s.distributed("attributions", "cityHash64(advertiser_id)"),

    // One row per day and report key, as Postgres's daily_rollups, but summed by merges instead
    // of upserted: traffic from the events' view, credit from the attributions' view. Distinct
    // orders are uniqExact states, exact when merged at any coarser grain (a campaign, a
    // publisher, a day), so no table per grain is needed.
    `CREATE TABLE IF NOT EXISTS ${rollups}${s.onCluster} (
       day Date,
       publisher_id LowCardinality(String),
       site LowCardinality(String),
       advertiser_id LowCardinality(String),
       campaign_id String,
       ad_id String,
       placement_name LowCardinality(String),
       impressions SimpleAggregateFunction(sum, UInt64),
       views SimpleAggregateFunction(sum, UInt64),
       clicks SimpleAggregateFunction(sum, UInt64),
       spend_micros SimpleAggregateFunction(sum, Int64),
       duplicate_events SimpleAggregateFunction(sum, UInt64),
       bot_events SimpleAggregateFunction(sum, UInt64),
       session_mismatch_events SimpleAggregateFunction(sum, UInt64),
       token_reuse_events SimpleAggregateFunction(sum, UInt64),
       no_user_agent_events SimpleAggregateFunction(sum, UInt64),
       click_velocity_events SimpleAggregateFunction(sum, UInt64),
       attributed_items SimpleAggregateFunction(sum, UInt64),
       conversions AggregateFunction(uniqExact, UUID),
       sales_revenue_micros SimpleAggregateFunction(sum, Int128),
       unverified_conversions AggregateFunction(uniqExact, UUID),
       unverified_sales_revenue_micros SimpleAggregateFunction(sum, Int128),
       uncredited_conversions AggregateFunction(uniqExact, UUID),
       uncredited_sales_revenue_micros SimpleAggregateFunction(sum, Int128)
     ) ENGINE = ${s.engine("AggregatingMergeTree", "report_rollups")}
     PARTITION BY toYYYYMM(day)
     ORDER BY (advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name)
     SETTINGS ${s.deduplication}`,
    ...s.distributed("report_rollups", "cityHash64(advertiser_id)"),

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ad_events_to_rollups${s.onCluster} TO ${rollups} AS
     SELECT toDate(created_at) AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
            countIf(status = 'counted' AND kind = 'impression') AS impressions,
            countIf(status = 'counted' AND kind = 'view') AS views,
            countIf(status = 'counted' AND kind = 'click') AS clicks,
            sum(spend_micros) AS spend_micros,
            countIf(status = 'duplicate') AS duplicate_events,
            countIf(status = 'bot') AS bot_events,
            countIf(status = 'session_mismatch') AS session_mismatch_events,
            countIf(status = 'token_reuse') AS token_reuse_events,
            countIf(status = 'no_user_agent') AS no_user_agent_events,
            countIf(status = 'click_velocity') AS click_velocity_events
       FROM ${events}
      GROUP BY day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_to_rollups${s.onCluster} TO ${rollups} AS
     SELECT toDate(placed_at) AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
            countIf(credited) AS attributed_items,
            uniqExactStateIf(conversion_id, credited) AS conversions,
            sumIf(toInt128(total_value_micros), credited) AS sales_revenue_micros,
            uniqExactStateIf(conversion_id, NOT verified) AS unverified_conversions,
            sumIf(toInt128(total_value_micros), NOT verified) AS unverified_sales_revenue_micros,
            uniqExactStateIf(conversion_id, NOT credited) AS uncredited_conversions,
            sumIf(toInt128(total_value_micros), NOT credited) AS uncredited_sales_revenue_micros
       FROM ${attributions}
      GROUP BY day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name`,
  ];
}
