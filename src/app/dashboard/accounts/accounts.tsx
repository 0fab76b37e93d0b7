"use client";
// Advertisers (wallet, daily budget), publishers (sites) and networks (sub-publishers). Account
// managers create accounts and top up wallets; an account's users manage its budget and sites.
// The list and the chosen account here (in the address, `account`: a link or a reload opens the
// same account's page); the account's page, the new-account form and the advertiser's products
// each in their own file.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { QueryState } from "@/app/query-state";
import { useTRPC } from "../../trpc-client";
import { useOneAccount } from "../account-picker";
import { AccountDetail } from "./account-detail";
import { NewAccount } from "./new-account";

export function Accounts() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const [accountId, setAccountId] = useOneAccount();
  const [creating, setCreating] = useState(false);
  const staff = me.data?.role === "staff";

  return (
    <>
      <h1>Accounts</h1>
      {staff && !creating ? (
        <div className="toolbar">
          <button type="button" className="button" onClick={() => setCreating(true)}>
            New account
          </button>
        </div>
      ) : null}
      {creating ? (
        <NewAccount
          onDone={(id) => {
            setCreating(false);
            if (id) setAccountId(id);
          }}
        />
      ) : null}
      <QueryState
        query={accounts}
        what="accounts"
        isEmpty={(list) => list.length === 0}
        empty={staff ? "No accounts yet. Make the first with New account." : "No accounts yet."}
      >
        {(list) => (
          <div className="split">
            <nav aria-label="Accounts" className="panel list">
              <ul>
                {list.map((a) => (
                  <li key={a.id}>
                    <button type="button" className="link-button" aria-current={a.id === accountId ? "true" : undefined} onClick={() => setAccountId(a.id)}>
                      {a.name}
                    </button>{" "}
                    <span className="muted">{a.kind}</span>
                  </li>
                ))}
              </ul>
            </nav>
            {accountId ? <AccountDetail key={accountId} id={accountId} staff={staff} /> : null}
          </div>
        )}
      </QueryState>
    </>
  );
}
