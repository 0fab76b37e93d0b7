// Hand-written SQL of the settle step (stretch.ts): the record of what it set aside
// (settle_set_aside), written in the step's transaction, one statement however many a stretch
// sets aside.
import type pg from "pg";
import sql from "sql-template-tag";
import { failureReason, sqlstateOf, storableText } from "@/server/db/failures";
import { prepared } from "@/server/db/prepared";

/** An item set aside: a beacon or an order (with its publisher and order id when they could be read), and the rule that set it aside, if one did. */
export interface SetAsideItem {
  eventId: string;
  kind: "beacon" | "conversion";
  shard: number | null;
  receivedAt: Date;
  publisherId?: string | null;
  orderId?: string | null;
  /** The rule that set it aside (orders_per_session, ...); none when it failed. */
  rule?: string | null;
}

/** Records an item set aside, with its reason, so operators and the dashboard list it and settling goes on. */
export async function recordSetAside(client: pg.PoolClient, item: SetAsideItem, error: unknown): Promise<void> {
  await recordSetAsides(client, [{ item, error }]);
}

/** Records items set aside in one statement, however many a rule sets aside in a stretch. */
export async function recordSetAsides(client: pg.PoolClient, entries: { item: SetAsideItem; error: unknown }[]): Promise<void> {
  if (entries.length === 0) return;
  const column = <T>(of: (entry: { item: SetAsideItem; error: unknown }) => T) => entries.map(of);
  await client.query(
    prepared(
      "settle-set-aside",
      sql`INSERT INTO settle_set_aside (event_id, kind, shard, received_at, reason, sqlstate, publisher_id, order_id, rule)
          SELECT * FROM unnest(${column(({ item }) => item.eventId)}::uuid[], ${column(({ item }) => item.kind)}::text[],
                               ${column(({ item }) => item.shard)}::int[], ${column(({ item }) => item.receivedAt)}::timestamptz[],
                               ${column(({ error }) => failureReason(error))}::text[], ${column(({ error }) => sqlstateOf(error))}::text[],
                               ${column(({ item }) => (item.publisherId ? storableText(item.publisherId, 256) : null))}::text[],
                               ${column(({ item }) => (item.orderId ? storableText(item.orderId, 256) : null))}::text[],
                               ${column(({ item }) => item.rule ?? null)}::text[])
          ON CONFLICT (event_id) DO NOTHING`,
    ),
  );
}
