// Scheduled work behind HTTP for serverless deployments: Vercel Cron calls GET with
// `Authorization: Bearer <CRON_SECRET>`. Without a configured secret nobody may call it.
import { env } from "@/env";
import { countStepFailure } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { runDueExports } from "@/server/pipeline/export/job/run-exports";
import { runReportJobs } from "@/server/pipeline/report/jobs/run-report-jobs";
import { settlePending } from "@/server/pipeline/settle/settle-pending";
import { shipPending } from "@/server/pipeline/ship/ship-pending";
import { upkeep as runUpkeep } from "@/server/upkeep/upkeep";
import { bearerMatches } from "./bearer";
import { errorResponse } from "./respond";

function cronRoute(job: () => Promise<object>): (request: Request) => Promise<Response> {
  return async (request) => {
    try {
      if (!bearerMatches(request.headers.get("authorization"), env().CRON_SECRET))
        throw new TallyError("unauthorized", "a cron route needs Authorization: Bearer <CRON_SECRET>");
      const started = Date.now();
      const result = await job();
      return Response.json({ ...result, duration_ms: Date.now() - started }, { headers: { "Cache-Control": "no-store" } });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

// A cron call attributes for at most 45 s, inside a serverless function's usual 60 s; the next
// minute's call takes what is left.
export const handleAttributionCron = cronRoute(async () => {
  const done = await attributePendingConversions({ budgetMs: 45_000 });
  return { orders: done.orders, items: done.items, attributed_orders: done.attributedOrders, set_aside: done.setAside };
});

// Every minute: day partitions and retention (catalogue look-ups when there is nothing to do), then
// settling for at most 45 s; the next minute's call takes what is left. Neither stops the other: a
// failed upkeep or settle step is logged, counted (/api/metrics) and listed in the answer, and the
// rest goes on.
export const handleSettleCron = cronRoute(async () => {
  let upkeep: Awaited<ReturnType<typeof runUpkeep>> | null = null;
  let upkeepError: string | null = null;
  try {
    upkeep = await runUpkeep(new Date());
  } catch (error) {
    upkeepError = (error as Error | undefined)?.message ?? String(error);
    countStepFailure("upkeep");
    logger().error({ job: "upkeep", cause: upkeepError }, "upkeep failed; the next run tries it again");
  }
  const done = await settlePending({ budgetMs: 45_000 });
  return {
    events: done.events,
    counted: done.counted,
    set_aside: done.setAside,
    busy_shards: done.busyShards,
    failed_steps: done.failedSteps,
    partitions_created: upkeep?.created ?? [],
    partitions_dropped: upkeep?.dropped ?? [],
    ...(upkeepError ? { upkeep_error: upkeepError } : {}),
  };
});

// Every minute with ClickHouse as the store: settled rows to ClickHouse for at most 45 s, the
// next call taking what is left. A failure of ClickHouse is counted (/api/metrics) and answered
// with what was shipped before it; the batches wait, and /api/health shows the lag growing.
export const handleShipCron = cronRoute(async () => {
  const done = await shipPending({ budgetMs: 45_000 });
  if (done.error !== null) {
    countStepFailure("ship");
    logger().error({ job: "ship", cause: done.error }, "shipping to ClickHouse failed; the next run tries again");
  }
  return { store: done.store, batches: done.batches, rows: done.rows, set_aside: done.setAside, ...(done.error !== null ? { error: done.error } : {}) };
});

/** The export route's maximum duration on Vercel (seconds); its budget leaves a minute to spare. */
export const EXPORT_MAX_DURATION_SECONDS = 300;

// Vercel kills a function at its maxDuration: a call delivers whole batches until a minute is
// left, answers with what it did, and the next call resumes (a batch cut short is redone whole).
export const handleExportCron = cronRoute(async () => {
  const { runs, unfinished } = await runDueExports({ budgetMs: (EXPORT_MAX_DURATION_SECONDS - 60) * 1000 });
  return {
    runs: runs.map((r) => ({
      run_id: r.runId,
      destination_id: r.destinationId,
      type: r.type,
      range: [r.rangeStart, r.rangeEnd],
      // An aggregate run's local date and zone; null for events.
      day: r.day,
      time_zone: r.timeZone,
      status: r.status,
      rows: r.rows,
      files: r.files,
      bytes: r.bytes,
      error: r.error,
    })),
    unfinished,
  };
});

/** The report jobs route's maximum duration on Vercel (seconds). */
export const REPORT_JOBS_MAX_DURATION_SECONDS = 300;

// Every minute: a job is taken only while a whole attempt (TALLY_REPORT_JOB_MAX_SECONDS) still
// fits before Vercel's cut with 20 s to spare, so no attempt is killed by the function's end;
// the first is always taken. The next minute's call takes what is left.
export const handleReportJobsCron = cronRoute(async () => {
  const attemptMs = env().TALLY_REPORT_JOB_MAX_SECONDS * 1000;
  const budgetMs = Math.max(1, (REPORT_JOBS_MAX_DURATION_SECONDS - 20) * 1000 - attemptMs);
  const jobs = await runReportJobs({ budgetMs });
  return { jobs: jobs.map((j) => ({ id: j.id, status: j.status, rows: j.rows, bytes: j.bytes, ...(j.error ? { error: j.error } : {}) })) };
});
