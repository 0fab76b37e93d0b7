// Orders that attribution set aside because their own data made it fail (attribute-batch.sql.ts):
// they are kept with the reason, counted, and shown to operators (`npm run rollups:verify`) and to
// the dashboard, so nothing is silently missing from the reports.
import { pgPool } from "@/server/db/pg-pool";

export interface SetAsideOrder {
  publisher_id: string;
  order_id: string;
  received_at: Date;
  reason: string;
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
    `SELECT publisher_id, order_id, received_at, attribution_failed_reason AS reason, count(*) OVER ()::int AS total
       FROM conversions
      WHERE attribution_failed_reason IS NOT NULL
        AND received_at >= $1::date AND received_at < $2::date + 1
        AND ($3::text[] IS NULL OR publisher_id = ANY($3))
      ORDER BY received_at DESC
      LIMIT $4`,
    [range.startDate, range.endDate, publisherIds, limit],
  );
  return { total: rows[0]?.total ?? 0, latest: rows.map(({ total: _total, ...order }) => order) };
}
