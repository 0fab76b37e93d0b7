"use client";
// How current the figures are, for staff: settling and attribution lag, and each export
// destination's delivery, from stats.pipeline (refreshed every 15 s; it refuses members).
import { useQuery } from "@tanstack/react-query";
import { Problem } from "../problem";
import { useTRPC } from "../trpc-client";
import { useMoments, whole } from "./figures";

/** 42 s, 7 min, 3 h: a lag as people say it. */
export function spoken(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

const waiting = (backlog: number, lagSeconds: number, what: string) =>
  backlog === 0 ? "up to date" : `${whole.format(backlog)} ${what} waiting, the oldest for ${spoken(lagSeconds)}`;

export function PipelineStatus() {
  const trpc = useTRPC();
  const status = useQuery({ ...trpc.stats.pipeline.queryOptions(), refetchInterval: 15_000 });
  const { minute } = useMoments();
  if (!status.data) return null;
  const { data } = status;
  return (
    <section className={data.problems.length > 0 ? "notice" : "pipeline"} aria-label="Processing">
      <h2>Processing</h2>
      <Problem about="Behind" message={data.problems.length > 0 ? `${data.problems.join("; ")}.` : null} />
      {/* Folded while all is well: the lags are there to look into, not to read every time. */}
      <details open={data.problems.length > 0}>
        <summary>{data.problems.length > 0 ? "Each job's lag" : "Up to date: each job's lag"}</summary>
        <dl className="reasons">
          <div>
            <dt>Beacons settled</dt>
            <dd data-lag="settle">{waiting(data.settleBacklog, data.settleLagSeconds, "beacons")}</dd>
          </div>
          <div>
            <dt>Orders attributed</dt>
            <dd data-lag="attribution">{waiting(data.attributionBacklog, data.attributionLagSeconds, "orders")}</dd>
          </div>
          {data.exports.map((lag) => (
            <div key={`${lag.destinationId}/${lag.type}`}>
              <dt>
                Export {lag.name} ({lag.type})
              </dt>
              <dd data-lag="export">
                {lag.deliveredTo === null || lag.lagSeconds === null
                  ? "nothing delivered yet"
                  : `delivered up to ${minute(lag.deliveredTo)} (${spoken(lag.lagSeconds)} ago)`}
              </dd>
            </div>
          ))}
        </dl>
      </details>
    </section>
  );
}
