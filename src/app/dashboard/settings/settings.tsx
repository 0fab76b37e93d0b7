"use client";
// Platform settings: the attribution window of each campaign type (account managers change it).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { useTRPC } from "../../trpc-client";

const TYPES = ["product", "display", "video"] as const;

export function Settings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const windows = useQuery(trpc.attribution.windows.queryOptions());
  const [edits, setEdits] = useState<Partial<Record<(typeof TYPES)[number], string>>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation(
    trpc.attribution.setWindow.mutationOptions({
      onSuccess: () => {
        setEdits({});
        void queryClient.invalidateQueries({ queryKey: trpc.attribution.pathKey() });
      },
    }),
  );
  const staff = me.data?.role === "staff";

  const submit = (type: (typeof TYPES)[number]) => (event: FormEvent) => {
    event.preventDefault();
    const days = Number(edits[type]);
    if (!Number.isInteger(days) || days < 1 || days > 90) return setProblem(`The ${type} window must be a whole number of days from 1 to 90`);
    setProblem(null);
    save.mutate({ campaignType: type, days });
  };

  return (
    <>
      <h1>Settings</h1>
      <section className="panel" aria-label="Attribution windows">
        <h2>Attribution windows</h2>
        <p className="muted">
          How long before an order an ad&apos;s impression, view or click can win its items. Changes apply to orders attributed from then on.
        </p>
        {windows.error ? (
          <p role="alert" className="error">
            {windows.error.message}
          </p>
        ) : !windows.data ? (
          <p aria-busy="true" className="muted">
            Loading…
          </p>
        ) : (
          TYPES.map((type) => (
            <form key={type} className="toolbar" noValidate onSubmit={submit(type)} aria-label={`${type} campaigns`}>
              <label>
                {type[0]!.toUpperCase() + type.slice(1)} campaigns (days)
                <input
                  type="number"
                  min={1}
                  max={90}
                  disabled={!staff}
                  value={edits[type] ?? String(windows.data[type])}
                  onChange={(e) => setEdits({ ...edits, [type]: e.target.value })}
                />
              </label>
              {staff ? (
                <button type="submit" className="button" disabled={save.isPending || edits[type] === undefined}>
                  Save
                </button>
              ) : null}
            </form>
          ))
        )}
        <Problem message={problem} />
        <Problem message={save.error?.message} />
        {!staff && me.data ? <p className="muted">Account managers change these.</p> : null}
      </section>
    </>
  );
}
