"use client";
// The activity log: every change to campaigns, ads, money, keys, clients, destinations and
// settings, newest first. Its filters live in the address (account, kind, who, q), so a reload
// and a shared link keep them.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ACTIVITY_KINDS } from "@/server/activity/activity-input";
import { useTRPC } from "../../trpc-client";
import { useUrlState } from "../url-state";
import { ActivityList } from "./activity-list";

const PARAMS = ["account", "kind", "who", "q"] as const;
type Param = (typeof PARAMS)[number];

export function ActivityPage() {
  const trpc = useTRPC();
  const { params, set } = useUrlState();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const current = Object.fromEntries(PARAMS.map((name) => [name, params.get(name) ?? ""])) as Record<Param, string>;

  // Filters replace the address rather than add to the history: the back button leaves the log.
  const update = (changes: Partial<Record<Param, string>>) => set(changes, { replace: true });
  return (
    <>
      <h1>Activity</h1>
      <p className="muted">Who changed what, and when: the changed fields before → after, newest first.</p>
      <section className="toolbar" aria-label="Filters">
        {accounts.data && accounts.data.length > 1 ? (
          <label>
            Account
            <select value={current.account} onChange={(e) => update({ account: e.target.value })}>
              <option value="">All accounts</option>
              {accounts.data.map((account) => (
                <option key={account.id} value={account.id}>
                  {account.name} ({account.kind})
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Kind of change
          <select value={current.kind} onChange={(e) => update({ kind: e.target.value })}>
            <option value="">All changes</option>
            {Object.entries(ACTIVITY_KINDS).map(([prefix, name]) => (
              <option key={prefix} value={prefix}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {/* Keyed by the address, so its words always show what the address says. */}
        <WordFilters key={`${current.who}\n${current.q}`} who={current.who} text={current.q} onApply={(who, q) => update({ who, q })} />
      </section>
      <ActivityList
        label="Activity"
        filter={{
          accountId: current.account || undefined,
          actionPrefix: current.kind || undefined,
          actorQuery: current.who || undefined,
          text: current.q || undefined,
        }}
      />
    </>
  );
}

/** Who and text, applied together (Enter or Filter) rather than at each keystroke. */
function WordFilters({ who: whoNow, text: textNow, onApply }: { who: string; text: string; onApply: (who: string, text: string) => void }) {
  const [who, setWho] = useState(whoNow);
  const [text, setText] = useState(textNow);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(who.trim(), text.trim());
  };
  return (
    <form className="toolbar" style={{ marginBottom: 0 }} aria-label="Search the log" onSubmit={submit}>
      <label>
        Who
        <input type="search" value={who} placeholder="name or e-mail" onChange={(e) => setWho(e.target.value)} />
      </label>
      <label>
        Text
        <input type="search" value={text} placeholder="name or id" onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit" className="button">
        Filter
      </button>
    </form>
  );
}
