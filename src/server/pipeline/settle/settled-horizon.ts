// How far settling has come, for the jobs that must not run ahead of it and for the lag operators
// watch. Attribution credits an order only with the touches that were accepted before it, and an
// export batch must not close over events or orders that are still in a log, so both stop at the
// oldest one still waiting.
import { oldestUnsettled } from "./settled-horizon.sql";

/** Slack for the order of receipt times against commit order, and for the app's clock against the database's. */
export const SETTLE_HORIZON_MARGIN_MS = 1_000;

/**
 * Everything accepted before this time is settled: `limit` when nothing waits, else a margin
 * before the oldest beacon or order waiting.
 */
export async function settledBefore(limit: Date): Promise<Date> {
  const oldest = await oldestUnsettled();
  if (oldest === null) return limit;
  return new Date(Math.min(limit.getTime(), oldest.getTime() - SETTLE_HORIZON_MARGIN_MS));
}
