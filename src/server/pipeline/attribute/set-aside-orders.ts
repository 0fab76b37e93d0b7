// Orders set aside, so nothing is silently missing from the reports: those attribution set aside
// because they made it fail (attribute-batch.sql.ts; kept in conversions with the reason), and
// those settling set aside (settle_set_aside: by a rule, such as a session's orders past its
// daily allowance, or because they could not be stored), with their publisher and order id. Shown
// to operators (`npm run rollups:verify`) and to the dashboard.
import { pgPool } from "@/server/db/pg-pool";

export interface SetAsideOrder {
  publisher_id: string;
  order_id: string;
  received_at: Date;
  reason: string;
  /** The rule that set it aside (orders_per_session, ...); null when it failed. */
  rule: string | null;
}

/**
 * Set-aside orders received in a range of UTC days (inclusive), of some publishers or of all
 * (null): how many, and the latest `limit` of them.
 */
export async function setAsideOrders(
  range: { startDate: string; endDate: string },
  publisherIds: string[] | null,
  limit = 20,
): Promise<{ total: number; latest: SetAsideOrder[] }> {
  const { rows } = await pgPool().query<SetAsideOrder & { total: number }>(
    `SELECT publisher_id, order_id, received_at, reason, rule, count(*) OVER ()::int AS total
       FROM (SELECT publisher_id, order_id, received_at, attribution_failed_reason AS reason, NULL::text AS rule
               FROM conversions
              WHERE attribution_failed_reason IS NOT NULL
                AND received_at >= $1::date AND received_at < $2::date + 1
                AND ($3::text[] IS NULL OR publisher_id = ANY($3))
             UNION ALL
             SELECT publisher_id, order_id, received_at, reason, rule
               FROM settle_set_aside
              WHERE kind = 'conversion' AND publisher_id IS NOT NULL AND order_id IS NOT NULL
                AND received_at >= $1::date AND received_at < $2::date + 1
                AND ($3::text[] IS NULL OR publisher_id = ANY($3))) AS set_aside
      ORDER BY received_at DESC
      LIMIT $4`,
    [range.startDate, range.endDate, publisherIds, limit],
  );
  return { total: rows[0]?.total ?? 0, latest: rows.map(({ total: _total, ...order }) => order) };
}
