"use client";
// Which account a screen is about: staff choose any (or, where it makes sense, all); a member's
// own account is the only one there is.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../trpc-client";

/** The account a screen shows: the one picked, else the first the viewer may see. */
export function useChosenAccount(): [string, (accountId: string) => void] {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const [chosen, setChosen] = useState("");
  return [chosen || accounts.data?.[0]?.id || "", setChosen];
}

export function AccountPicker({ value, onChange, allowAll = false }: { value: string; onChange: (accountId: string) => void; allowAll?: boolean }) {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const list = accounts.data ?? [];
  if (accounts.error)
    return (
      <p role="alert" className="error">
        The accounts could not be loaded: {accounts.error.message}
      </p>
    );
  if (list.length === 1 && !allowAll) return <span className="muted">{list[0]!.name}</span>;
  return (
    <label>
      Account
      <select value={value} onChange={(e) => onChange(e.target.value)} disabled={accounts.isPending}>
        {allowAll ? <option value="">All accounts</option> : null}
        {list.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name} ({a.kind})
          </option>
        ))}
      </select>
    </label>
  );
}
