"use client";
// Platform settings: each campaign type's click and view windows and which touches earn
// view-through credit (account managers change them), and who changed them last.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useRef, useState } from "react";
import { Problem } from "@/app/problem";
import { QueryState } from "@/app/query-state";
import type { ActivityEntry } from "@/server/activity/activity-log";
import { useTRPC } from "../../trpc-client";
import { QueryTable } from "../data-table";
import { minuteOrBlank } from "../figures";
import { momentColumn, type TableColumn } from "../table-columns";

const TYPES = ["product", "display", "video"] as const;
type CampaignType = (typeof TYPES)[number];
type ViewThrough = "views_and_impressions" | "views_only";
interface Edit {
  click?: string;
  view?: string;
  viewThrough?: ViewThrough;
}

const title = (type: CampaignType) => type[0]!.toUpperCase() + type.slice(1);
const describeWindows = (value: unknown) => {
  if (!value || typeof value !== "object") return "—";
  const w = value as { clickDays?: number | null; viewDays?: number | null; viewThrough?: ViewThrough };
  const days = (n: number | null | undefined) => (n === null || n === undefined ? "type's" : `${n} d`);
  return `click ${days(w.clickDays)}, view ${days(w.viewDays)}${w.viewThrough ? (w.viewThrough === "views_only" ? ", views only" : ", views and impressions") : ""}`;
};

const changeColumns: TableColumn<ActivityEntry>[] = [
  momentColumn("at", "When", (entry) => entry.at, minuteOrBlank),
  { id: "actor", label: "Who", kind: "text", value: (entry) => entry.actor },
  { id: "subject", label: "What", kind: "text", value: (entry) => entry.subject },
  { id: "before", label: "Before", kind: "text", value: (entry) => describeWindows(entry.before) },
  { id: "after", label: "After", kind: "text", value: (entry) => describeWindows(entry.after) },
];

export function Settings() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const staff = me.data?.role === "staff";
  const windows = useQuery(trpc.attribution.windows.queryOptions());
  return (
    <>
      <h1>Settings</h1>
      <section className="panel" aria-label="Attribution windows">
        <h2>Attribution windows</h2>
        <p className="muted">
          How long before an order an ad&apos;s click, or its view, can win the order&apos;s items: the latest click inside the click window wins; with none,
          the latest view inside the view window. A campaign may have windows of its own (on its page). Changes apply to orders attributed from then on.
        </p>
        <QueryState query={windows} what="attribution windows">
          {(byType) => TYPES.map((type) => <TypeWindowsForm key={type} type={type} current={byType[type]} staff={staff} />)}
        </QueryState>
        {!staff && me.data ? <p className="muted">Account managers change these.</p> : null}
      </section>
      {staff ? <RecentChanges /> : null}
    </>
  );
}

/** One campaign type's windows: read by everyone, changed by account managers. */
function TypeWindowsForm({
  type,
  current,
  staff,
}: {
  type: CampaignType;
  current: { clickDays: number; viewDays: number; viewThrough: ViewThrough };
  staff: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<Edit | undefined>(undefined);
  // The edit a save sent: once saved it is dropped, unless the form was changed again meanwhile.
  const sent = useRef<Edit | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation(
    trpc.attribution.setWindows.mutationOptions({
      onSuccess: () => {
        setPending((now) => (now === sent.current ? undefined : now));
        void queryClient.invalidateQueries({ queryKey: trpc.attribution.pathKey() });
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const clickDays = Number(pending?.click ?? current.clickDays);
    const viewDays = Number(pending?.view ?? current.viewDays);
    for (const [name, days] of [
      ["click", clickDays],
      ["view", viewDays],
    ] as const) {
      if (!Number.isInteger(days) || days < 1 || days > 90) return setProblem(`The ${type} ${name} window must be a whole number of days from 1 to 90`);
    }
    setProblem(null);
    sent.current = pending;
    save.mutate({ campaignType: type, clickDays, viewDays, viewThrough: pending?.viewThrough ?? current.viewThrough });
  };
  const edit = (change: Edit) => setPending({ ...pending, ...change });
  return (
    <form className="toolbar" noValidate onSubmit={submit} aria-label={`${type} campaigns`}>
      <strong>{title(type)} campaigns</strong>
      <label>
        Click window (days)
        <input
          type="number"
          min={1}
          max={90}
          disabled={!staff}
          value={pending?.click ?? String(current.clickDays)}
          onChange={(e) => edit({ click: e.target.value })}
        />
      </label>
      <label>
        View window (days)
        <input
          type="number"
          min={1}
          max={90}
          disabled={!staff}
          value={pending?.view ?? String(current.viewDays)}
          onChange={(e) => edit({ view: e.target.value })}
        />
      </label>
      <label>
        View-through credit
        <select disabled={!staff} value={pending?.viewThrough ?? current.viewThrough} onChange={(e) => edit({ viewThrough: e.target.value as ViewThrough })}>
          <option value="views_and_impressions">Views and impressions</option>
          <option value="views_only">Viewable views only</option>
        </select>
      </label>
      {staff ? (
        <button type="submit" className="button" disabled={save.isPending || pending === undefined}>
          Save
        </button>
      ) : null}
      <Problem message={problem} />
      <Problem message={save.error?.message} />
    </form>
  );
}

/** The activity log's latest entries: who changed a window, when, from what to what. For account managers. */
function RecentChanges() {
  const trpc = useTRPC();
  const changes = useQuery(trpc.attribution.changes.queryOptions());
  return (
    <section className="panel" aria-label="Recent changes">
      <h2>Recent changes</h2>
      <p className="muted">
        Windows only; every change is on the <Link href="/dashboard/activity">Activity</Link> page.
      </p>
      <QueryTable
        query={changes}
        what="window changes"
        empty="Nobody has changed a window yet."
        rowsOf={(list) => list}
        caption="Recent changes"
        columns={changeColumns}
        rowKey={(entry) => entry.id}
        currency={null}
        defaultSort={{ id: "at", descending: true }}
        fileName="window-changes"
        sheet="Window changes"
        urlPrefix="changes_"
      />
    </section>
  );
}
