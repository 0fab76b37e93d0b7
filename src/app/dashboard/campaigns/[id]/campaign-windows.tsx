"use client";
// The attribution windows in force for one campaign, beside its figures: its own where an account
// manager set them, else its type's (Settings). Account managers set or clear its own here.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { useTRPC } from "../../../trpc-client";

const from = (source: "campaign" | "type", type: string) => (source === "campaign" ? "this campaign's own" : `${type} campaigns'`);

export function CampaignWindows({ campaignId, campaignType }: { campaignId: string; campaignType: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const windows = useQuery(trpc.attribution.campaignWindows.queryOptions({ campaignId }));
  const [editing, setEditing] = useState<{ click: string; view: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation(
    trpc.attribution.setCampaignWindows.mutationOptions({
      onSuccess: () => {
        setEditing(null);
        void queryClient.invalidateQueries({ queryKey: trpc.attribution.pathKey() });
      },
    }),
  );
  if (!windows.data) return null;
  const w = windows.data;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const days = (text: string) => (text.trim() === "" ? null : Number(text));
    const clickDays = days(editing!.click);
    const viewDays = days(editing!.view);
    for (const value of [clickDays, viewDays]) {
      if (value !== null && (!Number.isInteger(value) || value < 1 || value > 90))
        return setProblem("A window is a whole number of days from 1 to 90, or blank for the type's");
    }
    setProblem(null);
    save.mutate({ campaignId, clickDays, viewDays });
  };
  return (
    <section aria-label="Attribution windows of this campaign" className="muted">
      <p>
        Sales credited by the latest click in the last <strong>{w.click.days} days</strong> ({from(w.click.from, campaignType)} click window), else the latest{" "}
        {w.viewThrough === "views_only" ? "viewable view" : "view or impression"} in the last <strong>{w.view.days} days</strong> (
        {from(w.view.from, campaignType)} view window).{" "}
        {me.data?.role === "staff" && editing === null ? (
          <button
            type="button"
            className="link-button"
            onClick={() =>
              setEditing({ click: w.click.from === "campaign" ? String(w.click.days) : "", view: w.view.from === "campaign" ? String(w.view.days) : "" })
            }
          >
            Change this campaign&apos;s windows
          </button>
        ) : null}
      </p>
      {editing ? (
        <form className="toolbar" noValidate onSubmit={submit} aria-label="This campaign's windows">
          <label>
            Click window (days; blank: the type&apos;s)
            <input type="number" min={1} max={90} value={editing.click} onChange={(e) => setEditing({ ...editing, click: e.target.value })} />
          </label>
          <label>
            View window (days; blank: the type&apos;s)
            <input type="number" min={1} max={90} value={editing.view} onChange={(e) => setEditing({ ...editing, view: e.target.value })} />
          </label>
          <button type="submit" className="button" disabled={save.isPending}>
            Save windows
          </button>
          <button type="button" className="chip" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      ) : null}
      <Problem message={problem} />
      <Problem message={save.error?.message} />
    </section>
  );
}
