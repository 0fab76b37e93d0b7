import { type IntervalJob, startIntervalJob } from "@/server/core/interval-job";
import { jobLog } from "@/server/core/log";
import { runDueExports } from "./run-exports";

/**
 * Runs the export job every `intervalMs` inside a long-running server (next dev, next start): the
 * same work as GET /api/cron/export on Vercel. The per-destination locks keep it apart from a
 * cron call or `npm run export` at the same time.
 */
export function startExportLoop(intervalMs: number, log: (line: string) => void = jobLog("export")): IntervalJob {
  return startIntervalJob({
    name: "export",
    intervalMs,
    firstDelayMs: 5_000,
    log,
    run: async () => {
      const { runs } = await runDueExports({ budgetMs: Math.max(60_000, intervalMs * 5) });
      for (const r of runs) {
        log(
          `tally: export: ${r.destinationId} ${r.type} ${r.rangeStart} to ${r.rangeEnd}: ${r.status === "succeeded" ? `${r.rows} rows in ${r.files} files` : `failed (${r.error})`}${r.setAsideRows > 0 ? `, ${r.setAsideRows} rows set aside` : ""}`,
        );
      }
    },
  });
}
