"use client";
// The form an account manager creates an account with.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZCreateAccountInput } from "@/server/accounts/account-input";
import { useTRPC } from "../../trpc-client";
import { firstProblem } from "./first-problem";

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function NewAccount({ onDone }: { onDone: (id: string | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const [form, setForm] = useState({
    kind: "advertiser",
    name: "",
    currency: "USD",
    sellerId: "",
    wallet: "",
    dailyBudget: "",
    networkId: "",
    siteName: "",
    siteDomain: "",
  });
  const [problem, setProblem] = useState<string | null>(null);
  const create = useMutation(
    trpc.accounts.create.mutationOptions({
      onSuccess: (created) => {
        void queryClient.invalidateQueries({ queryKey: trpc.accounts.pathKey() });
        onDone(created.id);
      },
    }),
  );
  const set = (key: keyof typeof form, value: string) => setForm({ ...form, [key]: value });
  const advertiser = form.kind === "advertiser";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = {
      kind: form.kind,
      name: form.name,
      currency: form.currency,
      ...(advertiser
        ? {
            sellerId: form.sellerId || undefined,
            walletBalance: form.wallet === "" ? undefined : Number(form.wallet),
            dailyBudget: form.dailyBudget === "" ? undefined : Number(form.dailyBudget),
          }
        : {
            networkId: form.kind === "publisher" && form.networkId ? form.networkId : undefined,
            sites: form.siteName ? [{ name: form.siteName, domain: form.siteDomain || undefined }] : [],
          }),
    };
    const parsed = ZCreateAccountInput.safeParse(input);
    if (!parsed.success)
      return setProblem(firstProblem(parsed.error.issues, { name: "Name", currency: "Currency", walletBalance: "Wallet", dailyBudget: "Daily budget" }));
    setProblem(null);
    create.mutate(parsed.data);
  };

  return (
    <form className="form panel" noValidate onSubmit={submit} aria-label="New account">
      <div className="row">
        <label>
          Kind
          <select value={form.kind} onChange={(e) => set("kind", e.target.value)}>
            <option value="advertiser">advertiser</option>
            <option value="publisher">publisher</option>
            <option value="network">network</option>
          </select>
        </label>
        <label>
          Name
          <input value={form.name} onChange={(e) => set("name", e.target.value)} />
        </label>
        <label>
          Currency
          <input value={form.currency} onChange={(e) => set("currency", e.target.value)} maxLength={3} />
        </label>
      </div>
      {advertiser ? (
        <div className="row">
          <label>
            Seller id
            <input value={form.sellerId} onChange={(e) => set("sellerId", e.target.value)} />
          </label>
          <label>
            Opening wallet
            <input type="number" min="0" step="0.01" value={form.wallet} onChange={(e) => set("wallet", e.target.value)} />
          </label>
          <label>
            Daily budget
            <input type="number" min="0" step="0.01" value={form.dailyBudget} onChange={(e) => set("dailyBudget", e.target.value)} />
          </label>
        </div>
      ) : (
        <div className="row">
          {form.kind === "publisher" ? (
            <label>
              Network
              <select value={form.networkId} onChange={(e) => set("networkId", e.target.value)}>
                <option value="">none (direct)</option>
                {(accounts.data ?? [])
                  .filter((a) => a.kind === "network")
                  .map((n) => (
                    <option key={n.id} value={n.id}>
                      {n.name}
                    </option>
                  ))}
              </select>
            </label>
          ) : null}
          <label>
            First site name
            <input value={form.siteName} onChange={(e) => set("siteName", e.target.value)} />
          </label>
          <label>
            Site domain
            <input value={form.siteDomain} onChange={(e) => set("siteDomain", e.target.value)} />
          </label>
        </div>
      )}
      <Problem message={problem} />
      <Problem message={create.error?.message} />
      <div className="row-buttons">
        <button type="submit" className="button" disabled={create.isPending}>
          Create account
        </button>
        <button type="button" className="link-button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
