"use client";
// One account's page: wallet (top-ups and its ledger: wallet.tsx) and daily budget (advertisers),
// sites and sub-publishers (publishers, networks), their conversion settings, products and the
// publisher's catalogue, its time zone (time-zone.tsx) and the account's team (team.tsx).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZAddSiteInput, ZDailyBudgetInput } from "@/server/accounts/account-input";
import { Empty, QueryState } from "../../query-state";
import { useTRPC } from "../../trpc-client";
import { formatMoney } from "../figures";
import { ReadOnlyNote, useMayChange } from "../may-change";
import { Catalogue } from "./catalogue";
import { ConversionTrust } from "./conversion-trust";
import { firstProblem } from "./first-problem";
import { Products } from "./products";
import { Team } from "./team";
import { AccountTimeZone } from "./time-zone";
import { WalletLedger, WalletTopUp } from "./wallet";

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function AccountDetail({ id, staff }: { id: string; staff: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const account = useQuery(trpc.accounts.get.queryOptions({ id }));
  const mayChange = useMayChange(id);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.accounts.pathKey() });
  const [budget, setBudget] = useState<string | null>(null);
  const [site, setSite] = useState({ name: "", domain: "" });
  const [problem, setProblem] = useState<string | null>(null);
  const budgetMutation = useMutation(
    trpc.accounts.setDailyBudget.mutationOptions({
      onSuccess: () => {
        setBudget(null);
        void refresh();
      },
    }),
  );
  const siteMutation = useMutation(
    trpc.accounts.addSite.mutationOptions({
      onSuccess: () => {
        setSite({ name: "", domain: "" });
        void refresh();
      },
    }),
  );
  const serverError = budgetMutation.error?.message ?? siteMutation.error?.message;

  if (!account.data)
    return (
      <QueryState query={account} what="account">
        {() => null}
      </QueryState>
    );
  const a = account.data;

  const submitBudget = (event: FormEvent) => {
    event.preventDefault();
    const value = budget ?? "";
    const parsed = ZDailyBudgetInput.safeParse({ accountId: id, dailyBudget: value.trim() === "" ? null : Number(value) });
    if (!parsed.success) return setProblem(firstProblem(parsed.error.issues, { dailyBudget: "Daily budget" }));
    setProblem(null);
    budgetMutation.mutate(parsed.data);
  };
  const submitSite = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZAddSiteInput.safeParse({ accountId: id, name: site.name, domain: site.domain || undefined });
    if (!parsed.success) return setProblem(firstProblem(parsed.error.issues, { name: "Site name", domain: "Domain" }));
    setProblem(null);
    siteMutation.mutate(parsed.data);
  };

  return (
    <section className="panel" aria-label={`Account ${a.name}`}>
      <h2>
        {a.name} <span className="badge">{a.kind}</span>
      </h2>
      <p className="muted">
        {a.id} · {a.currency}
        {a.sellerId ? ` · seller ${a.sellerId}` : ""}
        {a.network ? ` · sells through ${a.network.name}` : ""}
      </p>
      {a.kind === "advertiser" ? (
        <>
          <div className="kpis">
            <div className="kpi" data-kpi="Wallet">
              <span className="kpi-label">Wallet</span>
              <span className="kpi-value">{formatMoney(a.walletBalance, a.currency)}</span>
            </div>
            <div className="kpi" data-kpi="Daily budget">
              <span className="kpi-label">Daily budget</span>
              <span className="kpi-value">{a.dailyBudget === null ? "none" : formatMoney(a.dailyBudget, a.currency)}</span>
            </div>
          </div>
          {staff ? <WalletTopUp account={a} /> : null}
          {mayChange ? (
            <form className="toolbar" noValidate onSubmit={submitBudget} aria-label="Daily budget">
              <label>
                Daily budget (empty for none)
                <input
                  type="number"
                  min="0"
                  step="0.01"
                  value={budget ?? (a.dailyBudget === null ? "" : String(a.dailyBudget))}
                  onChange={(e) => setBudget(e.target.value)}
                />
              </label>
              <button type="submit" className="button" disabled={budgetMutation.isPending}>
                Save budget
              </button>
            </form>
          ) : null}
          <WalletLedger accountId={a.id} currency={a.currency} />
          <Products advertiserId={a.id} currency={a.currency} />
        </>
      ) : (
        <>
          <h3>Sites</h3>
          {a.sites.length === 0 ? (
            <Empty>No sites yet: add the site or app whose name its events and orders carry.</Empty>
          ) : (
            <ul>
              {a.sites.map((s) => (
                <li key={s.id}>
                  {s.name}
                  {s.domain ? <span className="muted"> · {s.domain}</span> : null}
                </li>
              ))}
            </ul>
          )}
          {mayChange ? (
            <form className="toolbar" noValidate onSubmit={submitSite} aria-label="Add a site">
              <label>
                Site name
                <input value={site.name} onChange={(e) => setSite({ ...site, name: e.target.value })} placeholder="Shop App" />
              </label>
              <label>
                Domain
                <input value={site.domain} onChange={(e) => setSite({ ...site, domain: e.target.value })} placeholder="shop.example" />
              </label>
              <button type="submit" className="button" disabled={siteMutation.isPending}>
                Add site
              </button>
            </form>
          ) : null}
          {a.kind === "network" ? (
            <>
              <h3>Sub-publishers</h3>
              {a.subPublishers.length === 0 ? (
                <Empty>No sub-publishers yet: a publisher joins this network when staff create it with the network named.</Empty>
              ) : (
                <ul>
                  {a.subPublishers.map((p) => (
                    <li key={p.id}>{p.name}</li>
                  ))}
                </ul>
              )}
            </>
          ) : null}
          <ConversionTrust publisherId={a.id} />
          <Catalogue publisherId={a.id} staff={staff} />
        </>
      )}
      <AccountTimeZone account={a} />
      <Team accountId={a.id} />
      {mayChange === false ? <ReadOnlyNote what="this account" /> : null}
      <Problem message={problem} />
      <Problem message={serverError} />
    </section>
  );
}
