"use client";
// Which account a screen is about: staff choose any (or, where it makes sense, all); a member's
// own account is the only one there is. The choice lives in the address (`account`), so a link or
// a reload opens the same account.
import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { Problem } from "../problem";
import { useTRPC } from "../trpc-client";
import { useUrlAccount, useUrlState } from "./url-state";

/**
 * The one account a screen is about (an account's page, its keys, its exports): the address's
 * when the viewer sees it, else where the viewer lands (`accounts.landing`: a member's own
 * account; for staff, the advertiser that spent most recently), which is then written into the
 * address in place, so a reload or a saved view keeps it. Choosing another writes it too. The
 * third value says that the viewer sees no account at all.
 */
export function useOneAccount(): [string, (accountId: string) => void, boolean] {
  const trpc = useTRPC();
  const [asked, setAccount] = useUrlAccount();
  const { set } = useUrlState();
  const landing = useQuery({ ...trpc.accounts.landing.queryOptions(), enabled: asked === "" });
  const landed = asked === "" ? (landing.data?.accountId ?? "") : "";
  useEffect(() => {
    if (landed) set({ account: landed }, { replace: true, onlyMissing: true });
  }, [landed, set]);
  return [asked || landed, setAccount, asked === "" && landing.data?.accountId === null];
}

export function AccountPicker({ value, onChange, allowAll = false }: { value: string; onChange: (accountId: string) => void; allowAll?: boolean }) {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const list = accounts.data ?? [];
  if (accounts.error) return <Problem about="The accounts could not be loaded" message={accounts.error.message} />;
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
