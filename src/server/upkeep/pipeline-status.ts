// What the dashboard's overview says of the background jobs, to staff only: how far behind
// settling and attribution are (the figures shown miss what they have not processed yet), and how
// far each export destination has delivered. The lags and backlogs are the whole platform's, so
// a member is refused (forbidden) rather than shown them. Thresholds are the ones /api/health uses.
import { type Actor, assertAccountManager } from "@/server/accounts/actor";
import type { ExportType } from "@/server/db/generated/enums";
import { unknownReportZones } from "@/server/store/unknown-zones.sql";
import { lagProblems, readLags } from "./lags.sql";

export interface PipelineStatus {
  settleLagSeconds: number;
  settleBacklog: number;
  attributionLagSeconds: number;
  attributionBacklog: number;
  exports: { destinationId: string; name: string; type: ExportType; deliveredTo: Date | null; lagSeconds: number | null }[];
  /** Lags past their thresholds, as short sentences; empty when all is well. */
  problems: string[];
}

export async function pipelineStatus({ actor }: { actor: Actor }): Promise<PipelineStatus> {
  assertAccountManager(actor);
  const [lags, unknownZones] = await Promise.all([readLags(), unknownReportZones()]);
  return {
    settleLagSeconds: lags.settleLagSeconds,
    settleBacklog: lags.settleBacklog,
    attributionLagSeconds: lags.attributionLagSeconds,
    attributionBacklog: lags.attributionBacklog,
    exports: lags.exports.map(({ destinationId, name, type, deliveredTo, lagSeconds }) => ({ destinationId, name, type, deliveredTo, lagSeconds })),
    problems: [
      ...lagProblems(lags),
      // A destination far behind also keeps raw rows past retention (raw-retention.sql.ts); say so, and until when.
      ...lags.retentionHolds.map(
        (hold) => `export ${hold.destinationName} (${hold.type}) holds raw rows past retention, from ${hold.deliveredTo.toISOString().slice(0, 10)}`,
      ),
      // A kept zone Postgres no longer knows: its reports are refused until the operator acts (docs/operations.md).
      ...unknownZones.map(
        ({ zone, foundAt }) =>
          `time zone ${zone} is unknown to Postgres since ${foundAt.toISOString().slice(0, 16).replace("T", " ")} UTC: its report rows are not kept and its reports are refused`,
      ),
    ],
  };
}
