// What settling set aside (settle_set_aside): beacons and orders whose own data could not be
// settled, and orders a rule set aside (orders per session, the publisher's plausibility limits).
// Operators read it through `npm run rollups:verify`, a publisher its own orders set aside by rule
// on the dashboard's overview.
import { pgPool } from "@/server/db/pg-pool";
import { latestOrdersSetAsideByRule, latestSetAside, setAsideCount, setAsideCountsByRule } from "./set-aside-events.sql";

export interface SetAsideEvent {
  event_id: string;
  kind: "beacon" | "conversion";
  received_at: Date;
  reason: string;
  sqlstate: string | null;
  publisher_id: string | null;
  order_id: string | null;
  /** The rule that set it aside (orders_per_session, order_total_limit, line_quantity_limit); null when it failed. */
  rule: string | null;
}

/** How many beacons and orders were set aside among those received in [from, to] (UTC days), and the latest `limit`. */
export async function setAsideEvents(range: { startDate: string; endDate: string }, limit = 100): Promise<{ total: number; latest: SetAsideEvent[] }> {
  const { rows: counted } = await pgPool().query<{ n: number }>(setAsideCount(range));
  const { rows } = await pgPool().query<SetAsideEvent>(latestSetAside(range, limit));
  return { total: counted[0]!.n, latest: rows };
}

export interface OrderSetAsideByRule {
  publisher_id: string;
  order_id: string;
  received_at: Date;
  rule: string;
  reason: string;
}

/**
 * Orders settling set aside by a rule, received in a range of UTC days (inclusive), of some
 * publishers or of all (null): how many in all and per rule, and the latest `limit`
 * (settle_set_aside_publisher_id_received_at_idx serves a publisher's).
 */
export async function ordersSetAsideByRule(
  range: { startDate: string; endDate: string },
  publisherIds: string[] | null,
  limit = 20,
): Promise<{ total: number; byRule: Record<string, number>; latest: OrderSetAsideByRule[] }> {
  const { rows: counts } = await pgPool().query<{ rule: string; n: number }>(setAsideCountsByRule(range, publisherIds));
  const { rows } = await pgPool().query<OrderSetAsideByRule>(latestOrdersSetAsideByRule(range, publisherIds, limit));
  return {
    total: counts.reduce((sum, row) => sum + row.n, 0),
    byRule: Object.fromEntries(counts.map((row) => [row.rule, row.n])),
    latest: rows,
  };
}
