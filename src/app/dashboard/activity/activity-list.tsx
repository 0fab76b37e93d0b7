"use client";
// The activity log's entries for a filter, newest first, a page at a time ("Load more" walks
// back): when (UTC), who, what, the subject and each changed field before → after.
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { TListActivityInput } from "@/server/activity/activity-input";
import { useTRPC } from "../../trpc-client";
import { utcMinute } from "../figures";
import { downloadTableFile, fileBaseName } from "../table-file";
import { describeAction, describeChange } from "./describe-change";

export type ActivityFilter = Omit<TListActivityInput, "cursor" | "limit">;

export function ActivityList({ filter, label, pageSize = 50 }: { filter: ActivityFilter; label: string; pageSize?: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = useInfiniteQuery(
    trpc.activity.list.infiniteQueryOptions(
      { ...filter, limit: pageSize },
      // A change made elsewhere a moment ago is what a person opening the log looks for.
      { getNextPageParam: (page) => page.next, initialCursor: null, staleTime: 0, refetchOnMount: "always" },
    ),
  );
  // Any change this dashboard makes may have written an entry: the log is read again after each.
  useEffect(
    () =>
      queryClient.getMutationCache().subscribe((event) => {
        if (event.type === "updated" && event.action.type === "success") void queryClient.invalidateQueries({ queryKey: trpc.activity.pathKey() });
      }),
    [queryClient, trpc],
  );
  if (pages.error) {
    return (
      <p role="alert" className="error">
        The activity could not be loaded: {pages.error.message}
      </p>
    );
  }
  if (!pages.data) {
    return (
      <p aria-busy="true" className="muted">
        Loading the activity…
      </p>
    );
  }
  const entries = pages.data.pages.flatMap((page) => page.entries);
  if (entries.length === 0) return <p className="empty">No changes match.</p>;
  return (
    <>
      <ActivityDownloads entries={entries} label={label} />
      <div className="table-scroll">
        <table className="data" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Subject</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-action={entry.action}>
                <td>{utcMinute(entry.at)}</td>
                <td>{entry.actor}</td>
                <td>{describeAction(entry.action)}</td>
                <td>
                  {entry.subject}
                  {entry.accountName ? <div className="muted">{entry.accountName}</div> : null}
                </td>
                <td>
                  {describeChange(entry.before, entry.after, entry.currency).map((line) => (
                    <div key={line}>{line}</div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pages.hasNextPage ? (
        <div className="toolbar">
          <button type="button" className="button" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            {pages.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        </div>
      ) : null}
    </>
  );
}

type ShownEntry = { at: Date; actor: string; action: string; subject: string; accountName: string | null; before: unknown; after: unknown; currency: string };

/** The entries loaded so far (more after "Load more"), as the table shows them, as CSV or XLSX. */
function ActivityDownloads({ entries, label }: { entries: ShownEntry[]; label: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const download = async (format: "csv" | "xlsx") => {
    setBusy(true);
    setProblem(null);
    try {
      await downloadTableFile({
        format,
        name: fileBaseName(label),
        sheet: "Activity",
        columns: [
          { label: "When (UTC)", kind: "datetime" },
          { label: "Who", kind: "text" },
          { label: "What", kind: "text" },
          { label: "Subject", kind: "text" },
          { label: "Account", kind: "text" },
          { label: "Change", kind: "text" },
        ],
        rows: entries.map((entry) => [
          entry.at.toISOString(),
          entry.actor,
          describeAction(entry.action),
          entry.subject,
          entry.accountName,
          describeChange(entry.before, entry.after, entry.currency).join("; "),
        ]),
      });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="toolbar">
      <button type="button" className="chip" disabled={busy} onClick={() => void download("csv")}>
        Download CSV
      </button>
      <button type="button" className="chip" disabled={busy} onClick={() => void download("xlsx")}>
        Download XLSX
      </button>
      {problem ? (
        <p role="alert" className="error">
          The file could not be made: {problem}
        </p>
      ) : null}
    </div>
  );
}
