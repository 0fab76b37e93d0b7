// Settles what the logs hold: accepted orders, then beacons shard by shard, until every shard this worker could take is caught
// up or the time budget is spent. Any number of workers (the server's loop, `npm run worker` on
// other machines, a cron call) run this at once: each skips the shards another one holds, and
// each shard's events are decided once, in order.
import { retryOnceOnConflict } from "@/server/db/retry";
import { settleConversionsStep } from "./settle-conversions";
import { settleShardStep } from "./settle-shard";
import { ALL_SHARDS } from "./shards";

export interface SettleOptions {
  /** Events per transaction. */
  batchSize?: number;
  /** Stop taking new steps after this long (a cron call has a deadline). */
  budgetMs?: number;
}

export interface SettleSummary {
  events: number;
  counted: number;
  /** Orders settled into conversions. */
  orders: number;
  setAside: number;
  /** Shards another worker held when this one came to them. */
  busyShards: number;
}

export const SETTLE_BATCH_SIZE = 2_000;

export async function settlePending(options: SettleOptions = {}): Promise<SettleSummary> {
  const { batchSize = SETTLE_BATCH_SIZE, budgetMs = Number.POSITIVE_INFINITY } = options;
  const started = Date.now();
  const summary: SettleSummary = { events: 0, counted: 0, orders: 0, setAside: 0, busyShards: 0 };
  // Orders first: they are few, and attribution waits for them.
  for (;;) {
    if (Date.now() - started >= budgetMs) return summary;
    const step = await retryOnceOnConflict(() => settleConversionsStep(batchSize));
    summary.orders += step.stored.length;
    summary.setAside += step.setAside;
    if (!step.taken || step.stored.length + step.setAside < batchSize) break;
  }
  // A different starting shard per call, so workers that start together spread over the shards.
  const offset = Math.floor(Math.random() * ALL_SHARDS.length);
  for (let n = 0; n < ALL_SHARDS.length; n++) {
    const shard = ALL_SHARDS[(offset + n) % ALL_SHARDS.length]!;
    for (;;) {
      if (Date.now() - started >= budgetMs) return summary;
      const step = await retryOnceOnConflict(() => settleShardStep(shard, batchSize));
      if (!step.taken) summary.busyShards += 1;
      summary.events += step.settled.length + step.setAside;
      summary.counted += step.settled.filter((event) => event.status === "counted").length;
      summary.setAside += step.setAside;
      if (!step.taken || step.settled.length + step.setAside < batchSize) break;
    }
  }
  return summary;
}
