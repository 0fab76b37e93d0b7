// Settles what the logs hold: accepted orders, then beacons shard by shard, until every shard this
// worker could take is caught up or the time budget is spent. Any number of workers (the server's
// loop, `npm run worker` on other machines, a cron call) run this at once: each skips the shards
// another one holds, and each shard's events are decided once, in order. One log's failure never
// stops another's: a step that fails (the database's fault: a step sets aside what is the items')
// is logged and counted, and the worker goes on with the next shard, so beacons settle while
// orders cannot, and the reverse.

import { countStepFailure } from "@/server/core/counters";
import { logger } from "@/server/core/log";
import { ALL_SHARDS } from "@/server/core/shards";
import { retryOnceOnConflict } from "@/server/db/retry";
import { settleConversionsStep } from "./settle-conversions";
import { settleShardStep } from "./settle-shard";

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
  /** Steps that failed (the orders' log, or a shard), each tried again on the next run; their errors are logged. */
  failedSteps: { log: string; error: string }[];
}

export const SETTLE_BATCH_SIZE = 2_000;

/** Runs one log's steps until it is caught up or the budget is spent; a failed step ends that log's turn. */
async function drain(log: string, step: () => Promise<{ more: boolean }>, summary: SettleSummary, outOfTime: () => boolean): Promise<void> {
  for (;;) {
    if (outOfTime()) return;
    try {
      if (!(await retryOnceOnConflict(step)).more) return;
    } catch (error) {
      const message = (error as Error | undefined)?.message ?? String(error);
      summary.failedSteps.push({ log, error: message });
      countStepFailure("settle");
      logger().error({ job: "settle", log, cause: message }, "a settle step failed; the next run tries it again");
      return;
    }
  }
}

export async function settlePending(options: SettleOptions = {}): Promise<SettleSummary> {
  const { batchSize = SETTLE_BATCH_SIZE, budgetMs = Number.POSITIVE_INFINITY } = options;
  const started = Date.now();
  const outOfTime = () => Date.now() - started >= budgetMs;
  const summary: SettleSummary = { events: 0, counted: 0, orders: 0, setAside: 0, busyShards: 0, failedSteps: [] };
  // Orders first: they are few, and attribution waits for them.
  await drain(
    "orders",
    async () => {
      const step = await settleConversionsStep(batchSize);
      summary.orders += step.stored.length;
      summary.setAside += step.setAside;
      return { more: step.taken && step.more };
    },
    summary,
    outOfTime,
  );
  // A different starting shard per call, so workers that start together spread over the shards.
  const offset = Math.floor(Math.random() * ALL_SHARDS.length);
  for (let n = 0; n < ALL_SHARDS.length; n++) {
    const shard = ALL_SHARDS[(offset + n) % ALL_SHARDS.length]!;
    await drain(
      `shard ${shard}`,
      async () => {
        const step = await settleShardStep(shard, batchSize);
        if (!step.taken) summary.busyShards += 1;
        summary.events += step.settled.length + step.setAside;
        summary.counted += step.settled.filter((event) => event.status === "counted").length;
        summary.setAside += step.setAside;
        return { more: step.taken && step.more };
      },
      summary,
      outOfTime,
    );
  }
  return summary;
}
