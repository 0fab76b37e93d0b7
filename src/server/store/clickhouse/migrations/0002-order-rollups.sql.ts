// Hand-written SQL: the distinct-order states move out of report_rollups into order_rollups, which
// has rows only where attributions are. Most report rows are traffic alone, yet every one carried
// three uniqExact states, and reads merging them were slowed by deserializing the empty ones
// (a publisher's 30-day totals over 50M events: 165 ms with them, 12 ms with the sums alone).
// Order: the new table and its view first, then the table filled from the attributions already
// there, and only then does report_rollups' view stop writing the states and lose the columns,
// so no moment has an attribution counted in neither table.
import type { Schema } from "../schema";

const KEY = "day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name";

export function statements(s: Schema): string[] {
  const attributions = s.local("attributions");
  const orders = s.local("order_rollups");
  const states = `uniqExactStateIf(conversion_id, credited) AS conversions,
            uniqExactStateIf(conversion_id, NOT verified) AS unverified_conversions,
            uniqExactStateIf(conversion_id, NOT credited) AS uncredited_conversions`;
  const dropStates = (table: string) =>
    `ALTER TABLE ${table}${s.onCluster} DROP COLUMN IF EXISTS conversions, DROP COLUMN IF EXISTS unverified_conversions,
       DROP COLUMN IF EXISTS uncredited_conversions`;
  return [
    // report_rollups' key, so a report row's orders are found by the same conditions as its sums.
    `CREATE TABLE IF NOT EXISTS ${orders}${s.onCluster} (
       day Date,
       publisher_id LowCardinality(String),
       site LowCardinality(String),
       advertiser_id LowCardinality(String),
       campaign_id String,
       ad_id String,
       placement_name LowCardinality(String),
       conversions AggregateFunction(uniqExact, UUID),
       unverified_conversions AggregateFunction(uniqExact, UUID),
       uncredited_conversions AggregateFunction(uniqExact, UUID)
     ) ENGINE = ${s.engine("AggregatingMergeTree", "order_rollups")}
     PARTITION BY toYYYYMM(day)
     ORDER BY (advertiser_id, day, campaign_id, ad_id, publisher_id, site, placement_name)
     SETTINGS ${s.deduplication}`,
    ...s.distributed("order_rollups", "cityHash64(advertiser_id)"),

    `CREATE MATERIALIZED VIEW IF NOT EXISTS attributions_to_order_rollups${s.onCluster} TO ${orders} AS
     SELECT toDate(placed_at) AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
            ${states}
       FROM ${attributions}
      GROUP BY ${KEY}`,

    // The attributions already there. A uniqExact state counts an order id once however often it
    // is merged in, so this insert run again (a migration cut short), or overlapping rows the view
    // above has already written, changes no count. Through the Distributed tables on a cluster, so
    // one statement fills every shard (sharded as the attributions are), written before it returns.
    `INSERT INTO order_rollups
     SELECT toDate(placed_at) AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
            ${states}
       FROM attributions
      GROUP BY ${KEY}
     SETTINGS distributed_foreground_insert = 1`,

    `ALTER TABLE attributions_to_rollups${s.onCluster} MODIFY QUERY
     SELECT toDate(placed_at) AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
            countIf(credited) AS attributed_items,
            sumIf(toInt128(total_value_micros), credited) AS sales_revenue_micros,
            sumIf(toInt128(total_value_micros), NOT verified) AS unverified_sales_revenue_micros,
            sumIf(toInt128(total_value_micros), NOT credited) AS uncredited_sales_revenue_micros
       FROM ${attributions}
      GROUP BY ${KEY}`,

    // The Distributed table's copy of the columns goes too, or `SELECT *` through it would ask the
    // shards for columns they no longer have.
    ...s.withColumns("report_rollups").map(dropStates),
  ];
}
