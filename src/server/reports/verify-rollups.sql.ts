// Hand-written SQL: the consistency check recounts every report row from the raw tables, an
// aggregate over whole tables that the ORM cannot express. It is a tool, never a report path.
import { pgPool } from "@/server/db/pg-pool";

const MEASURES = [
  "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events",
  "attributed_items", "conversions", "sales_revenue_micros",
] as const;
export type RollupMeasure = (typeof MEASURES)[number];

export interface RollupDifference {
  day: string;
  publisher_id: string;
  site: string;
  advertiser_id: string;
  campaign_id: string;
  ad_id: string;
  placement_name: string;
  measure: RollupMeasure;
  /** In daily_rollups. */
  stored: string;
  /** Recounted from ad_events and attributions. */
  recounted: string;
}

const KEY = "day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name";

// $1, $2: first and last day (inclusive, UTC). The report rows as ad_events and attributions
// say they should be, as the CTE `recounted`.
const RECOUNT_CTES = `
events AS (
  SELECT (created_at AT TIME ZONE 'UTC')::date AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'impression') AS impressions,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'view') AS views,
         count(*) FILTER (WHERE status = 'counted' AND kind = 'click') AS clicks,
         sum(spend_micros) AS spend_micros,
         count(*) FILTER (WHERE status = 'duplicate') AS duplicate_events,
         count(*) FILTER (WHERE status = 'bot') AS bot_events
    FROM ad_events
   WHERE created_at >= $1::date AND created_at < $2::date + 1
   GROUP BY ${KEY}
), credited AS (
  SELECT (placed_at AT TIME ZONE 'UTC')::date AS day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
         count(*) AS attributed_items, count(DISTINCT conversion_id) AS conversions, sum(total_value_micros) AS sales_revenue_micros
    FROM attributions
   WHERE placed_at >= $1::date AND placed_at < $2::date + 1
   GROUP BY ${KEY}
), recounted AS (
  SELECT ${KEY},
         coalesce(e.impressions, 0) AS impressions, coalesce(e.views, 0) AS views, coalesce(e.clicks, 0) AS clicks,
         coalesce(e.spend_micros, 0) AS spend_micros, coalesce(e.duplicate_events, 0) AS duplicate_events,
         coalesce(e.bot_events, 0) AS bot_events, coalesce(c.attributed_items, 0) AS attributed_items,
         coalesce(c.conversions, 0) AS conversions, coalesce(c.sales_revenue_micros, 0) AS sales_revenue_micros
    FROM events e FULL JOIN credited c USING (${KEY})
)`;

const VERIFY_SQL = `
WITH ${RECOUNT_CTES}, stored AS (
  SELECT ${KEY}, ${MEASURES.join(", ")} FROM daily_rollups WHERE day BETWEEN $1::date AND $2::date
)
SELECT day::text, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name, m.measure, m.stored::text, m.recounted::text
  FROM stored s FULL JOIN recounted r USING (${KEY})
 CROSS JOIN LATERAL (VALUES ${MEASURES.map((m) => `('${m}', coalesce(s.${m}, 0)::numeric, coalesce(r.${m}, 0)::numeric)`).join(", ")})
       AS m(measure, stored, recounted)
 WHERE m.stored <> m.recounted
 ORDER BY day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name, m.measure`;

/**
 * Every figure of daily_rollups between two days (inclusive) that differs from a recount of
 * ad_events and attributions; empty when the report rows are right.
 */
export async function verifyRollups(firstDay: string, lastDay: string): Promise<RollupDifference[]> {
  const { rows } = await pgPool().query<RollupDifference>(VERIFY_SQL, [firstDay, lastDay]);
  return rows;
}

/**
 * Replaces the report rows between two days (inclusive) with a recount of ad_events and
 * attributions; returns the number of rows written. For loading generated data (the report
 * benchmark) and for repairs: the writers keep the rows current on their own.
 */
export async function rebuildRollups(firstDay: string, lastDay: string): Promise<number> {
  const client = await pgPool().connect();
  try {
    await client.query("BEGIN");
    await client.query("DELETE FROM daily_rollups WHERE day BETWEEN $1::date AND $2::date", [firstDay, lastDay]);
    const { rowCount } = await client.query(
      `INSERT INTO daily_rollups (${KEY}, ${MEASURES.join(", ")}) WITH ${RECOUNT_CTES} SELECT ${KEY}, ${MEASURES.join(", ")} FROM recounted`,
      [firstDay, lastDay],
    );
    await client.query("COMMIT");
    return rowCount ?? 0;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}
