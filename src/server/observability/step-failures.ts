// Pipeline steps that failed for a reason that is not an item's (the database down, a lost
// connection): each is logged where it happens and counted here, and /api/metrics serves the count
// (metrics.ts registers it), so an operator sees a job failing without reading its logs.
import { Counter } from "prom-client";

const holder = globalThis as unknown as { tallyStepFailures?: Counter<"job"> };

export function stepFailureCounter(): Counter<"job"> {
  holder.tallyStepFailures ??= new Counter({
    name: "tally_pipeline_step_failures_total",
    help: "Pipeline steps that failed and will be tried again (the database's or the process's fault, not an item's), by job.",
    labelNames: ["job"] as const,
    registers: [],
  });
  return holder.tallyStepFailures;
}

/** `job`: one of Tally's own job names (settle, attribution, export, upkeep), never input. */
export function countStepFailure(job: string): void {
  stepFailureCounter().inc({ job });
}
