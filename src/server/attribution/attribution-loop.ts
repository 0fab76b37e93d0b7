import { attributePendingConversions } from "./attribute-pending";

const holder = globalThis as unknown as { tallyAttributionLoop?: { stop: () => void } };

/**
 * Runs attribution every `intervalMs` inside a long-running server (next dev, next start), so
 * an order shows in reports within a minute without a scheduler. One loop per process; runs
 * never overlap. Serverless deployments call the cron route instead.
 */
export function startAttributionLoop(intervalMs: number, log: (line: string) => void = console.log): { stop: () => void } {
  if (holder.tallyAttributionLoop) return holder.tallyAttributionLoop;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  const run = async () => {
    try {
      const done = await attributePendingConversions();
      if (failing) log("tally: attribution: database reachable again");
      failing = false;
      if (done.orders > 0) log(`tally: attribution: ${done.orders} orders, ${done.items} items attributed`);
    } catch (error) {
      // One line when the database goes away, not one per interval while it stays away.
      if (!failing) log(`tally: attribution failed, retrying every ${intervalMs / 1000} s: ${(error as Error).message}`);
      failing = true;
    }
    if (!stopped) timer = setTimeout(run, intervalMs).unref();
  };
  timer = setTimeout(run, Math.min(intervalMs, 2_000)).unref();

  holder.tallyAttributionLoop = {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      holder.tallyAttributionLoop = undefined;
    },
  };
  return holder.tallyAttributionLoop;
}
