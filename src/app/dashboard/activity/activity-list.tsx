"use client";
// The activity log's entries for a filter, newest first, a page at a time ("Load more" walks
// back): when (in the viewer's zone, figures.tsx minuteIn; how long ago on hover), who, what they did as a sentence naming the thing
// changed, and each changed field before → after.
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Problem } from "@/app/problem";
import { QueryState } from "@/app/query-state";
import type { TListActivityInput } from "@/server/activity/activity-input";
import { useTRPC } from "../../trpc-client";
import { useMoments } from "../figures";
import { downloadTableFile, fileBaseName } from "../table-file";
import { describeChange } from "./describe-change";
import { type DescribedEntry, describeEntry, howLongAgo } from "./describe-entry";

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
  return (
    <QueryState query={pages} what="activity" isEmpty={(data) => data.pages.every((page) => page.entries.length === 0)} empty="No changes match.">
      {(data) => {
        const entries = data.pages.flatMap((page) => page.entries);
        return (
          <>
            <ActivityDownloads entries={entries} label={label} />
            <ActivityTable entries={entries} label={label} />
            {pages.hasNextPage ? (
              <div className="toolbar">
                <button type="button" className="button" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
                  {pages.isFetchingNextPage ? "Loading…" : "Load more"}
                </button>
              </div>
            ) : null}
          </>
        );
      }}
    </QueryState>
  );
}

/** The entries as rows: when (exact, how long ago on hover), who, the change as a sentence, each field before → after. */
function ActivityTable({ entries, label }: { entries: (ShownEntry & { id: string })[]; label: string }) {
  const now = new Date();
  const { minute, zone } = useMoments();
  return (
    <div className="table-scroll">
      <table className="data" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id} data-action={entry.action}>
              <td>
                <time dateTime={entry.at.toISOString()} title={howLongAgo(entry.at, now)}>
                  {minute(entry.at)}
                </time>
              </td>
              <td>{entry.actor}</td>
              <td>
                {describeEntry(entry)}
                {entry.accountName ? <div className="muted">{entry.accountName}</div> : null}
              </td>
              <td>
                {describeChange(entry.before, entry.after, entry.currency, entry.names, zone).map((line) => (
                  <div key={line}>{line}</div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type ShownEntry = DescribedEntry & { at: Date };

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
          { label: "Account", kind: "text" },
          { label: "Change", kind: "text" },
        ],
        rows: entries.map((entry) => [
          entry.at.toISOString(),
          entry.actor,
          describeEntry(entry),
          entry.accountName,
          describeChange(entry.before, entry.after, entry.currency, entry.names).join("; "),
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
      <Problem message={problem} about="The file could not be made" testId="activity-file-problem" />
    </div>
  );
}
