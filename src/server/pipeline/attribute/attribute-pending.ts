import { settledBefore } from "@/server/pipeline/settle/settled-horizon";
import { store } from "@/server/store";
import type { AttributedBatch, AttributionCounts } from "@/server/store/conversion-rows";

export interface AttributePendingOptions {
  now?: Date;
  /** Orders per transaction. */
  batchSize?: number;
  /**
   * Orders younger than this wait for the next run, so that a click beacon still in flight when
   * the shopper checked out is accepted before its order is attributed. Orders also wait while a
   * beacon accepted before them is not settled yet (settled-horizon.ts).
   */
  settleMs?: number;
  /** Stop taking new batches after this long (a cron call has a deadline). */
  budgetMs?: number;
  onBatch?: (batch: AttributedBatch) => void;
}

export const DEFAULT_SETTLE_MS = 5_000;

/**
 * Attributes every order waiting in the queue (conversions.attributed_at IS NULL), batch by
 * batch, until the queue is empty or the time budget is spent. Safe to run concurrently and to
 * run again: each order is attributed once.
 */
export async function attributePendingConversions(options: AttributePendingOptions = {}): Promise<AttributionCounts> {
  const { batchSize = 2_000, settleMs = DEFAULT_SETTLE_MS, budgetMs = Number.POSITIVE_INFINITY, onBatch } = options;
  const started = Date.now();
  const total: AttributionCounts = { orders: 0, items: 0, attributedOrders: 0, setAside: 0 };
  for (;;) {
    const now = options.now ?? new Date();
    const receivedBefore = await settledBefore(new Date(now.getTime() - settleMs));
    const batch = await store().settled.attributeBatch(batchSize, receivedBefore, now);
    total.orders += batch.orders;
    total.items += batch.items;
    total.attributedOrders += batch.attributedOrders;
    total.setAside += batch.setAside;
    if (batch.orders > 0) onBatch?.(batch);
    if (!batch.more || Date.now() - started >= budgetMs) return total;
  }
}
