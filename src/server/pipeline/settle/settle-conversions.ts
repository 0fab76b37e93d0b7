// The settle step of accepted orders (the step itself: stretch.ts): the next stretch of
// conversion_log under its one cursor, bounded in orders and in bytes, stored in conversions, the
// attribution queue (repeats never reach the log: the receipt is taken when an order is accepted).
// An order past its publisher's plausibility limits (order-plausibility.ts) or its session's daily
// allowance (TALLY_ORDERS_PER_SESSION_PER_DAY) is set aside by that rule, and one that cannot be
// stored, whatever the reason, is set aside with its failure. The others are stored, credited
// unless they are unverified and their publisher does not credit orders without proof (the default).
import type pg from "pg";
import { env } from "@/env";
import { DAY_MS } from "@/server/core/days";
import { defaultTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { store } from "@/server/store";
import type { ConversionToStore } from "@/server/store/conversion-rows";
import { implausibility, publisherTrust, totalOf } from "./order-plausibility";
import { ORDERS_SHARD, recordIntake } from "./publisher-intake.sql";
import { moveConversionCursor, readConversionSizes, readConversions, sessionOrders, TAKE_CONVERSION_CURSOR } from "./settle-conversions.sql";
import { type LogPosition, settleNextStretch } from "./stretch";
import { recordSetAside, recordSetAsides } from "./stretch.sql";
import { WORKER_NAME } from "./worker-name";

export interface ConversionStep {
  taken: boolean;
  /** Event ids of the orders stored. */
  stored: string[];
  /** Orders set aside: by a rule, or because they could not be stored. */
  setAside: number;
  /** Whether more orders may be waiting. */
  more: boolean;
}

/**
 * The most bytes of orders (as the log stores them) one stretch reads: with orders of up to
 * TALLY_ORDER_MAX_BYTES, a stretch of large orders holds a few dozen of them, and one statement
 * never carries more than this.
 */
export const STRETCH_BYTES = 8 * 1024 * 1024;

interface LoggedOrder extends LogPosition {
  event_id: string;
  received_at: Date;
  bytes: number;
  /** The order as accepted (JSON: placed_at is a string; orders logged before verification have no verified_by or total_micros). */
  conversion: Omit<ConversionToStore, "credited" | "verified_by"> & { verified_by?: ConversionToStore["verified_by"]; total_micros?: string };
}

interface OrderToSettle {
  order: ConversionToStore;
  totalMicros: bigint;
  bytes: number;
}

/** How many rows of `sizes` fit in `budget` bytes: at least one, whatever its size. */
export function rowsWithin(sizes: readonly number[], budget: number): number {
  let total = 0;
  for (const [i, size] of sizes.entries()) {
    total += size;
    if (total > budget && i > 0) return i;
  }
  return sizes.length;
}

/**
 * The orders past their session's allowance: a session may place TALLY_ORDERS_PER_SESSION_PER_DAY
 * orders with one publisher in any 24 hours, counting the orders stored before and those of this
 * stretch, in order. Returns the indexes of `orders` to set aside.
 */
async function ordersPastSessionAllowance(client: pg.PoolClient, orders: ConversionToStore[]): Promise<Set<number>> {
  const allowance = env().TALLY_ORDERS_PER_SESSION_PER_DAY;
  const key = (publisherId: string, sessionId: string) => `${publisherId}\u0000${sessionId}`;
  const first = new Map<string, { publisherId: string; sessionId: string; since: Date }>();
  for (const order of orders) {
    const k = key(order.publisher_id, order.session_id);
    if (!first.has(k)) first.set(k, { publisherId: order.publisher_id, sessionId: order.session_id, since: new Date(order.received_at.getTime() - DAY_MS) });
  }
  const sessions = [...first.values()];
  const { rows } = await client.query<{ publisher_id: string; session_id: string; received_at: Date }>(sessionOrders(sessions, allowance));
  const placed = new Map<string, number[]>();
  for (const row of rows) {
    const k = key(row.publisher_id, row.session_id);
    placed.set(k, [...(placed.get(k) ?? []), row.received_at.getTime()]);
  }
  const past = new Set<number>();
  orders.forEach((order, index) => {
    const k = key(order.publisher_id, order.session_id);
    const at = order.received_at.getTime();
    const times = placed.get(k) ?? [];
    if (times.filter((t) => t > at - DAY_MS).length >= allowance) {
      past.add(index);
      return;
    }
    placed.set(k, [...times, at]);
  });
  return past;
}

/** Why an order of the stretch is set aside by a rule: the rule and what an operator reads. */
interface SetAsideByRule {
  rule: string;
  reason: string;
}

async function settleOrders(client: pg.PoolClient, orders: OrderToSettle[]): Promise<{ eventId: string; stored: boolean }[]> {
  const trust = await publisherTrust(
    client,
    orders.map(({ order }) => order.publisher_id),
  );
  const trustOf = (publisherId: string) => trust.get(publisherId) ?? defaultTrust();
  const setAside = new Map<number, SetAsideByRule>();
  orders.forEach(({ order, totalMicros }, index) => {
    const verdict = implausibility(order, totalMicros, trustOf(order.publisher_id));
    if (verdict) setAside.set(index, verdict);
  });
  // An implausible order takes nothing of its session's allowance.
  const plausible = orders.map((_, index) => index).filter((index) => !setAside.has(index));
  const past = await ordersPastSessionAllowance(
    client,
    plausible.map((index) => orders[index]!.order),
  );
  const allowance = env().TALLY_ORDERS_PER_SESSION_PER_DAY;
  for (const position of past) {
    setAside.set(plausible[position]!, {
      rule: "orders_per_session",
      reason: `the session had already placed ${allowance} orders with this publisher in 24 hours (TALLY_ORDERS_PER_SESSION_PER_DAY)`,
    });
  }
  const kept = orders
    .filter((_, index) => !setAside.has(index))
    .map(({ order }) => ({ ...order, credited: order.verified_by !== null || trustOf(order.publisher_id).creditUnverified }));
  await store().settled.storeConversions(client, kept);
  await recordSetAsides(
    client,
    [...setAside].map(([index, { rule, reason }]) => {
      const { order } = orders[index]!;
      return {
        item: {
          eventId: order.event_id,
          kind: "conversion" as const,
          shard: null,
          receivedAt: order.received_at,
          publisherId: order.publisher_id,
          orderId: order.order_id,
          rule,
        },
        error: new Error(reason),
      };
    }),
  );
  await recordIntake(
    client,
    orders.map(({ order, bytes }, index) =>
      setAside.has(index)
        ? { publisherId: order.publisher_id, at: order.received_at, setAside: 1, bytes: 0 }
        : { publisherId: order.publisher_id, at: order.received_at, orders: 1, bytes },
    ),
    ORDERS_SHARD,
  );
  return orders.map(({ order }, index) => ({ eventId: order.event_id, stored: !setAside.has(index) }));
}

export async function settleConversionsStep(limit: number): Promise<ConversionStep> {
  const { taken, done, setAside, more } = await settleNextStretch({
    takeCursor: async (client) => (await client.query<{ last_xid: string; last_seq: string }>(TAKE_CONVERSION_CURSOR)).rows[0],
    readStretch: async (client, cursor) => {
      const { rows: sizes } = await client.query<LogPosition & { bytes: number }>(readConversionSizes(cursor, limit));
      if (sizes.length === 0) return { rows: [], full: false };
      const count = rowsWithin(
        sizes.map((row) => row.bytes),
        STRETCH_BYTES,
      );
      const last = sizes[count - 1]!;
      const { rows } = await client.query<LoggedOrder>(readConversions(cursor, last));
      return { rows, full: count < sizes.length || sizes.length === limit };
    },
    toItem: (row): OrderToSettle => {
      const order: ConversionToStore = {
        ...row.conversion,
        event_id: row.event_id,
        placed_at: new Date(row.conversion.placed_at),
        received_at: row.received_at,
        verified_by: row.conversion.verified_by ?? null,
        // Decided in settleOrders, from the publisher's setting.
        credited: true,
      };
      return { order, totalMicros: totalOf({ ...order, total_micros: row.conversion.total_micros }), bytes: row.bytes };
    },
    settle: settleOrders,
    setAside: (client, row, error) =>
      recordSetAside(
        client,
        {
          eventId: row.event_id,
          kind: "conversion",
          shard: null,
          receivedAt: row.received_at,
          publisherId: typeof row.conversion?.publisher_id === "string" ? row.conversion.publisher_id : null,
          orderId: typeof row.conversion?.order_id === "string" ? row.conversion.order_id : null,
        },
        error,
      ),
    moveCursor: async (client, last, count) => {
      await client.query(moveConversionCursor(last, count, WORKER_NAME));
    },
  });
  return {
    taken,
    stored: done.filter((order) => order.stored).map((order) => order.eventId),
    setAside: setAside + done.filter((order) => !order.stored).length,
    more,
  };
}
