import { runDueExports } from "./run-exports";

const holder = globalThis as unknown as { tallyExportLoop?: { stop: () => void } };

/**
 * Runs the export job every `intervalMs` inside a long-running server (next dev, next start): the
 * same work as GET /api/cron/export on Vercel. One loop per process; runs never overlap, and the
 * per-destination locks keep it apart from a cron call or `npm run export` at the same time.
 */
export function startExportLoop(intervalMs: number, log: (line: string) => void = console.log): { stop: () => void } {
  if (holder.tallyExportLoop) return holder.tallyExportLoop;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  const run = async () => {
    try {
      const { runs } = await runDueExports({ budgetMs: Math.max(60_000, intervalMs * 5) });
      failing = false;
      for (const r of runs) {
        log(`tally: export: ${r.destinationId} ${r.type} ${r.rangeStart} to ${r.rangeEnd}: ${r.status === "succeeded" ? `${r.rows} rows in ${r.files} files` : `failed (${r.error})`}`);
      }
    } catch (error) {
      if (!failing) log(`tally: export failed, retrying every ${intervalMs / 1000} s: ${(error as Error).message}`);
      failing = true;
    }
    if (!stopped) timer = setTimeout(run, intervalMs).unref();
  };
  timer = setTimeout(run, Math.min(intervalMs, 5_000)).unref();

  holder.tallyExportLoop = {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      holder.tallyExportLoop = undefined;
    },
  };
  return holder.tallyExportLoop;
}
