// Ships settled rows to the store that keeps them outside Postgres (ClickHouse), for as long as a
// run may take: the server's and the worker's loop, and GET /api/cron/ship. Any number of these
// run at once: each takes waiting batches under a lease, so a batch is sent by one at a time, and
// counted once however often it is sent (store/clickhouse/ship-batches.ts). With Postgres as the
// store there is nothing to ship, and a run does nothing.
import { store } from "@/server/store";
import type { ShipOutcome } from "@/server/store/shipping";
import { ensureStoreMigrated } from "@/server/store/start-store";

/**
 * Seconds a loop lets a settled batch wait for others before it ships (unless enough wait to fill
 * an insert): a batch a second costs ClickHouse a few times what one insert of many does, and
 * reports stay within a second or two of settling.
 */
export const SHIP_GATHER_SECONDS = 1;

export interface ShipSummary extends ShipOutcome {
  /** The store's name: whether anything was there to ship. */
  store: string;
}

/**
 * Ships waiting batches, a store's run after another, until none waits, one fails, or `budgetMs`
 * is spent (a batch under way then is finished). With `gatherSeconds`, batches younger than that
 * wait for more to join them (Shipping.ship). Returns what it shipped and the failure, if any.
 */
export async function shipPending(options: { budgetMs: number; gatherSeconds?: number }): Promise<ShipSummary> {
  const current = store();
  const summary: ShipSummary = { store: current.name, batches: 0, rows: 0, setAside: 0, error: null };
  const shipping = current.shipping;
  if (!shipping) return summary;
  // Tables first: a process that started while ClickHouse was away creates them on its first run.
  try {
    await ensureStoreMigrated();
  } catch (error) {
    summary.error = `migrations: ${error instanceof Error ? error.message : String(error)}`;
    return summary;
  }
  const deadline = Date.now() + options.budgetMs;
  while (Date.now() < deadline) {
    const run = await shipping.ship({ deadline, gatherSeconds: options.gatherSeconds ?? 0 });
    summary.batches += run.batches;
    summary.rows += run.rows;
    summary.setAside += run.setAside;
    summary.error = run.error;
    if (run.error !== null || run.batches === 0) break;
  }
  return summary;
}
