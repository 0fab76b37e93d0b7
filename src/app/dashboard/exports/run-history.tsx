"use client";
import type { QueryLike } from "@/app/query-state";
// A destination's delivery runs, newest first, as a dashboard table: sortable, its columns chosen,
// downloadable as CSV or XLSX (operators send these to the customer's data team when a file is late).
import type { ExportRunRecord } from "@/server/pipeline/export/destinations/export-run-record";
import { QueryTable } from "../data-table";
import { minuteOrBlank } from "../figures";
import { momentColumn, type TableColumn } from "../table-columns";

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1_048_576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`);

const runColumns: TableColumn<ExportRunRecord>[] = [
  momentColumn("startedAt", "Started", (run) => run.startedAt, minuteOrBlank),
  { id: "type", label: "Type", kind: "text", value: (run) => (run.backfill ? `${run.type} (backfill)` : run.type) },
  momentColumn("rangeStart", "From", (run) => run.rangeStart, minuteOrBlank),
  momentColumn("rangeEnd", "To", (run) => run.rangeEnd, minuteOrBlank),
  {
    id: "status",
    label: "Status",
    kind: "text",
    value: (run) => run.status,
    cell: (run) => (
      <>
        <span className={`badge ${run.status}`}>{run.status}</span>
        {run.attempt > 1 ? ` (attempt ${run.attempt})` : ""}
      </>
    ),
  },
  { id: "attempt", label: "Attempt", kind: "integer", value: (run) => run.attempt, hidden: true },
  // No totals: a history mixes types (events, orders, daily aggregates), failed runs and backfills, whose rows count different things.
  { id: "rows", label: "Rows", kind: "integer", value: (run) => run.rows },
  { id: "files", label: "Files", kind: "integer", value: (run) => run.files },
  { id: "bytes", label: "Size (bytes)", kind: "integer", value: (run) => run.bytes, cell: (run) => size(run.bytes) },
  {
    id: "setAsideRows",
    label: "Set aside",
    kind: "integer",
    value: (run) => run.setAsideRows,
    cell: (run) => (run.setAsideRows > 0 ? <SetAside rows={run.setAsideRows} list={run.setAside} /> : ""),
  },
  { id: "durationMs", label: "Duration (ms)", kind: "integer", value: (run) => run.durationMs, hidden: true },
  momentColumn("nextAttemptAt", "Next attempt", (run) => run.nextAttemptAt, minuteOrBlank),
  { id: "error", label: "Error", kind: "text", value: (run) => run.error ?? "" },
];

/** `urlPrefix`: the destination's own, so each history on the page keeps its sort and columns apart. */
export function RunHistory({ destinationName, urlPrefix, runs }: { destinationName: string; urlPrefix: string; runs: QueryLike<ExportRunRecord[]> }) {
  return (
    <QueryTable
      query={runs}
      what="runs"
      empty="No runs yet: the first comes with the next scheduled delivery."
      rowsOf={(list) => list}
      caption={`Run history of ${destinationName}`}
      columns={runColumns}
      rowKey={(run) => run.id}
      currency={null}
      defaultSort={{ id: "startedAt", descending: true }}
      fileName="export-runs"
      sheet="Runs"
      urlPrefix={urlPrefix}
    />
  );
}

/** Rows a run left out because they could not be read or encoded: how many, and each row's id and reason. */
function SetAside({ rows, list }: { rows: number; list: { id: string; reason: string }[] }) {
  return (
    <details>
      <summary>
        {rows.toLocaleString("en")} {rows === 1 ? "row" : "rows"}
      </summary>
      <ul>
        {list.map((row) => (
          <li key={row.id}>
            <code>{row.id}</code>: {row.reason}
          </li>
        ))}
      </ul>
    </details>
  );
}
