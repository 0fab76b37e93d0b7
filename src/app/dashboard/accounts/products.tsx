"use client";
// An advertiser's catalogue of products (SKUs its campaigns and ads promote).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZCreateProductInput } from "@/server/campaigns/product-input";
import { useTRPC } from "../../trpc-client";
import { QueryTable } from "../data-table";
import { useMayChange } from "../may-change";
import type { TableColumn } from "../table-columns";
import { firstProblem } from "./first-problem";

interface ProductRow {
  id: string;
  sku: string;
  name: string;
  category: string | null;
  price: number | null;
}

const productColumns: TableColumn<ProductRow>[] = [
  { id: "name", label: "Product", kind: "text", value: (p) => p.name },
  { id: "sku", label: "SKU", kind: "text", value: (p) => p.sku, cell: (p) => <code>{p.sku}</code> },
  { id: "category", label: "Category", kind: "text", value: (p) => p.category ?? "" },
  { id: "price", label: "Price", kind: "money", value: (p) => p.price },
];

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function Products({ advertiserId, currency }: { advertiserId: string; currency: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const products = useQuery(trpc.products.list.queryOptions({ advertiserId }));
  const mayChange = useMayChange(advertiserId);
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
      <QueryTable
        query={products}
        what="products"
        empty="No products yet: campaigns promote products, and orders are matched to them by SKU."
        rowsOf={(data) => data}
        caption="Products"
        columns={productColumns}
        rowKey={(p) => p.id}
        currency={currency}
        defaultSort={{ id: "name", descending: false }}
        fileName="products"
        sheet="Products"
        urlPrefix="products_"
      />
      {mayChange ? (
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
      ) : null}
      <Problem message={problem} />
      <Problem message={create.error?.message} />
    </>
  );
}
