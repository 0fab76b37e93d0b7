// Orders set aside, so nothing is silently missing from the reports: those attribution set aside
// because they made it fail (attribute-batch.sql.ts; kept in conversions with the reason), and
// those settling set aside (settle_set_aside: by a rule, such as a session's orders past its
// daily allowance, or because they could not be stored), with their publisher and order id. Shown
// to operators (`npm run rollups:verify`) and to the dashboard.
import { pgPool } from "@/server/db/pg-pool";
import { latestSetAsideOrders } from "./set-aside-orders.sql";

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
  const { rows } = await pgPool().query<SetAsideOrder & { total: number }>(latestSetAsideOrders(range, publisherIds, limit));
  return { total: rows[0]?.total ?? 0, latest: rows.map(({ total: _total, ...order }) => order) };
}
