"use client";
// A publisher's catalogue: which brand (advertiser) each SKU belongs to on this publisher. Only
// that advertiser's campaigns may promote a listed SKU here, and only its ads are credited with
// the SKU's sales here. Account managers keep it; the publisher's users read it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZCatalogueEntryInput } from "@/server/campaigns/catalogue-input";
import type { CatalogueEntry } from "@/server/campaigns/publisher-catalogue";
import { useTRPC } from "../../trpc-client";
import { QueryTable } from "../data-table";
import type { TableColumn } from "../table-columns";

const LABELS: Record<string, string> = { sku: "SKU", productId: "Product id", advertiserId: "Brand" };

const catalogueColumns: TableColumn<CatalogueEntry>[] = [
  { id: "sku", label: "SKU", kind: "text", value: (e) => e.sku, cell: (e) => <code>{e.sku}</code> },
  { id: "productId", label: "Product id", kind: "text", value: (e) => e.productId ?? "", cell: (e) => (e.productId ? <code>{e.productId}</code> : "") },
  { id: "brand", label: "Brand", kind: "text", value: (e) => e.advertiserName },
];

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function Catalogue({ publisherId, staff }: { publisherId: string; staff: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const entries = useQuery(trpc.catalogue.list.queryOptions({ publisherId }));
  const accounts = useQuery({ ...trpc.accounts.list.queryOptions(), enabled: staff });
  const conflicts = useQuery({ ...trpc.catalogue.conflicts.queryOptions({ publisherId }), enabled: staff });
  const advertisers = (accounts.data ?? []).filter((a) => a.kind === "advertiser");
  const [form, setForm] = useState({ sku: "", productId: "", advertiserId: "" });
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.catalogue.pathKey() });
  const list = useMutation(
    trpc.catalogue.set.mutationOptions({
      onSuccess: () => {
        setForm((f) => ({ ...f, sku: "", productId: "" }));
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.catalogue.remove.mutationOptions({ onSuccess: () => void refresh() }));
  const advertiserId = form.advertiserId || advertisers[0]?.id || "";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = { publisherId, sku: form.sku, advertiserId, productId: form.productId.trim() === "" ? undefined : form.productId };
    const parsed = ZCatalogueEntryInput.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return setProblem(`${LABELS[String(issue.path[0])] ?? String(issue.path[0])} ${issue.message}`);
    }
    setProblem(null);
    list.mutate(parsed.data);
  };

  const listed = list.data;
  return (
    <section aria-label="Catalogue">
      <h3>Catalogue</h3>
      <p className="muted">
        Whose SKU is whose here. A listed SKU (and its product id) can only be promoted here by its brand, whichever campaign came first, and only the
        brand&apos;s ads are credited with its sales here.
      </p>
      <QueryTable
        query={entries}
        what="catalogue"
        empty="No SKUs listed: here a SKU belongs to the first advertiser whose campaign promotes it."
        rowsOf={(data) => data}
        caption="Catalogue"
        columns={catalogueColumns}
        rowKey={(e) => e.sku}
        currency={null}
        defaultSort={{ id: "sku", descending: false }}
        fileName="catalogue"
        sheet="Catalogue"
        urlPrefix="catalogue_"
        actions={
          staff
            ? (e) => (
                <button
                  type="button"
                  className="link-button"
                  disabled={remove.isPending}
                  onClick={() =>
                    window.confirm(`Take ${e.sku} off the catalogue? It will belong to whoever's campaign promotes it first.`) &&
                    remove.mutate({ publisherId, sku: e.sku })
                  }
                >
                  Remove<span className="visually-hidden"> {e.sku}</span>
                </button>
              )
            : undefined
        }
      />
      {staff ? (
        <>
          <form className="toolbar" noValidate onSubmit={submit} aria-label="List a SKU">
            <label>
              SKU
              <input value={form.sku} onChange={(e) => setForm({ ...form, sku: e.target.value })} />
            </label>
            <label>
              Product id (optional)
              <input value={form.productId} onChange={(e) => setForm({ ...form, productId: e.target.value })} />
            </label>
            <label>
              Brand
              <select value={advertiserId} onChange={(e) => setForm({ ...form, advertiserId: e.target.value })}>
                {advertisers.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" className="button" disabled={list.isPending}>
              List SKU
            </button>
          </form>
          <Problem message={problem} />
          <Problem message={list.error?.message} />
          {listed ? (
            <p role="status" className="muted">
              {listed.entry.sku} belongs to {listed.entry.advertiserName} here.
              {listed.displaced.length > 0
                ? ` Campaigns of other advertisers that promote it here keep it but are no longer credited with it: ${listed.displaced.map((d) => `${d.campaignName} (${d.advertiserName})`).join(", ")}.`
                : ""}
            </p>
          ) : null}
          {(conflicts.data ?? []).length > 0 ? (
            <>
              <h4>Promoted by more than one advertiser here</h4>
              <ul>
                {conflicts.data!.map((c) => (
                  <li key={`${c.kind}:${c.value}`}>
                    {c.kind === "sku" ? "SKU" : "Product id"} <code>{c.value}</code>: {c.advertisers.map((a) => a.name).join(", ")}
                    <span className="muted">
                      {" "}
                      ·{" "}
                      {c.ownerId
                        ? `listed: credited to ${c.advertisers.find((a) => a.id === c.ownerId)?.name ?? c.ownerId} only`
                        : "not listed: credited to whichever ad wins the order"}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
