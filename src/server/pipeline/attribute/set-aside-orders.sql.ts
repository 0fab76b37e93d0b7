// Hand-written SQL: the orders set aside by attribution and by settling, read together
// (set-aside-orders.ts).
import sql, { type Sql } from "sql-template-tag";

export const latestSetAsideOrders = (range: { startDate: string; endDate: string }, publisherIds: string[] | null, limit: number): Sql =>
  sql`SELECT publisher_id, order_id, received_at, reason, rule, count(*) OVER ()::int AS total
       FROM (SELECT publisher_id, order_id, received_at, attribution_failed_reason AS reason, NULL::text AS rule
               FROM conversions
              WHERE attribution_failed_reason IS NOT NULL
                AND received_at >= ${range.startDate}::date AND received_at < ${range.endDate}::date + 1
                AND (${publisherIds}::text[] IS NULL OR publisher_id = ANY(${publisherIds}))
             UNION ALL
             SELECT publisher_id, order_id, received_at, reason, rule
               FROM settle_set_aside
              WHERE kind = 'conversion' AND publisher_id IS NOT NULL AND order_id IS NOT NULL
                AND received_at >= ${range.startDate}::date AND received_at < ${range.endDate}::date + 1
                AND (${publisherIds}::text[] IS NULL OR publisher_id = ANY(${publisherIds}))) AS set_aside
      ORDER BY received_at DESC
      LIMIT ${limit}`;
