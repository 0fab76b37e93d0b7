"use client";
// Advertisers (wallet, daily budget), publishers (sites) and networks (sub-publishers). Account
// managers create accounts and top up wallets; an account's users manage its budget and sites.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ZAddSiteInput, ZCreateAccountInput, ZDailyBudgetInput, ZTopUpInput } from "@/server/accounts/account-input";
import { ZCreateProductInput } from "@/server/campaigns/product-input";
import { useTRPC } from "../../trpc-client";
import { useChosenAccount } from "../account-picker";
import { money } from "../figures";
import { Catalogue } from "./catalogue";

const firstProblem = (issues: { path: PropertyKey[]; message: string }[], labels: Record<string, string>) => {
  const issue = issues[0]!;
  const key = String(issue.path.at(-1) ?? "");
  return `${labels[key] ?? key} ${issue.message}`;
};

export function Accounts() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const [accountId, setAccountId] = useChosenAccount();
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
      {accounts.error ? (
        <p role="alert" className="error">
          {accounts.error.message}
        </p>
      ) : accounts.isPending ? (
        <p aria-busy="true" className="muted">
          Loading accounts…
        </p>
      ) : (
        <div className="split">
          <nav aria-label="Accounts" className="panel list">
            <ul>
              {accounts.data.map((a) => (
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
    </>
  );
}

function AccountDetail({ id, staff }: { id: string; staff: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const account = useQuery(trpc.accounts.get.queryOptions({ id }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.accounts.pathKey() });
  const [topUp, setTopUp] = useState("");
  const [budget, setBudget] = useState<string | null>(null);
  const [site, setSite] = useState({ name: "", domain: "" });
  const [problem, setProblem] = useState<string | null>(null);
  const topUpMutation = useMutation(
    trpc.accounts.topUp.mutationOptions({
      onSuccess: () => {
        setTopUp("");
        void refresh();
      },
    }),
  );
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
  const serverError = topUpMutation.error?.message ?? budgetMutation.error?.message ?? siteMutation.error?.message;

  if (account.error)
    return (
      <p role="alert" className="error">
        {account.error.message}
      </p>
    );
  if (!account.data)
    return (
      <p aria-busy="true" className="muted">
        Loading…
      </p>
    );
  const a = account.data;

  const submitTopUp = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZTopUpInput.safeParse({ accountId: id, amount: topUp === "" ? Number.NaN : Number(topUp) });
    if (!parsed.success) return setProblem(firstProblem(parsed.error.issues, { amount: "Amount" }));
    setProblem(null);
    topUpMutation.mutate(parsed.data);
  };
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
              <span className="kpi-value">
                {money.format(a.walletBalance)} {a.currency}
              </span>
            </div>
            <div className="kpi" data-kpi="Daily budget">
              <span className="kpi-label">Daily budget</span>
              <span className="kpi-value">{a.dailyBudget === null ? "none" : `${money.format(a.dailyBudget)} ${a.currency}`}</span>
            </div>
          </div>
          {staff ? (
            <form className="toolbar" noValidate onSubmit={submitTopUp} aria-label="Top up the wallet">
              <label>
                Top-up amount
                <input type="number" min="0" step="0.01" value={topUp} onChange={(e) => setTopUp(e.target.value)} />
              </label>
              <button type="submit" className="button" disabled={topUpMutation.isPending}>
                Top up
              </button>
            </form>
          ) : null}
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
          <Products advertiserId={a.id} currency={a.currency} />
        </>
      ) : (
        <>
          <h3>Sites</h3>
          {a.sites.length === 0 ? (
            <p className="empty">No sites yet.</p>
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
          {a.kind === "network" ? (
            <>
              <h3>Sub-publishers</h3>
              {a.subPublishers.length === 0 ? (
                <p className="empty">No sub-publishers yet.</p>
              ) : (
                <ul>
                  {a.subPublishers.map((p) => (
                    <li key={p.id}>{p.name}</li>
                  ))}
                </ul>
              )}
            </>
          ) : null}
          <Catalogue publisherId={a.id} staff={staff} />
        </>
      )}
      {problem ? (
        <p role="alert" className="error">
          {problem}
        </p>
      ) : null}
      {serverError ? (
        <p role="alert" className="error">
          {serverError}
        </p>
      ) : null}
    </section>
  );
}

function NewAccount({ onDone }: { onDone: (id: string | null) => void }) {
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
    create.mutate(input as never);
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
      {problem ? (
        <p role="alert" className="error">
          {problem}
        </p>
      ) : null}
      {create.error ? (
        <p role="alert" className="error">
          {create.error.message}
        </p>
      ) : null}
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

function Products({ advertiserId, currency }: { advertiserId: string; currency: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const products = useQuery(trpc.products.list.queryOptions({ advertiserId }));
  const [form, setForm] = useState({ sku: "", name: "", category: "", price: "", imageUrl: "" });
  const [problem, setProblem] = useState<string | null>(null);
  const create = useMutation(
    trpc.products.create.mutationOptions({
      onSuccess: () => {
        setForm({ sku: "", name: "", category: "", price: "", imageUrl: "" });
        void queryClient.invalidateQueries({ queryKey: trpc.products.pathKey() });
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = {
      advertiserId,
      sku: form.sku,
      name: form.name,
      category: form.category || undefined,
      imageUrl: form.imageUrl || undefined,
      price: form.price === "" ? undefined : Number(form.price),
    };
    const parsed = ZCreateProductInput.safeParse(input);
    if (!parsed.success) return setProblem(firstProblem(parsed.error.issues, { sku: "SKU", name: "Product name", price: "Price" }));
    setProblem(null);
    create.mutate(input);
  };
  const field = (key: keyof typeof form, label: string, type = "text") => (
    <label>
      {label}
      <input type={type} step={type === "number" ? "0.01" : undefined} value={form[key]} onChange={(e) => setForm({ ...form, [key]: e.target.value })} />
    </label>
  );
  return (
    <>
      <h3>Products</h3>
      {products.data?.length === 0 ? (
        <p className="empty">No products yet: campaigns promote products, and orders are matched to them by SKU.</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <caption className="visually-hidden">Products</caption>
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col">SKU</th>
                <th scope="col">Category</th>
                <th scope="col">Price</th>
              </tr>
            </thead>
            <tbody>
              {(products.data ?? []).map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>
                    <code>{p.sku}</code>
                  </td>
                  <td>{p.category ?? ""}</td>
                  <td>{p.price === null ? "" : `${money.format(p.price)} ${currency}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className="toolbar" noValidate onSubmit={submit} aria-label="Add a product">
        {field("sku", "SKU")}
        {field("name", "Product name")}
        {field("category", "Category")}
        {field("price", "Price", "number")}
        {field("imageUrl", "Image address")}
        <button type="submit" className="button" disabled={create.isPending}>
          Add product
        </button>
      </form>
      {problem ? (
        <p role="alert" className="error">
          {problem}
        </p>
      ) : null}
      {create.error ? (
        <p role="alert" className="error">
          {create.error.message}
        </p>
      ) : null}
    </>
  );
}
