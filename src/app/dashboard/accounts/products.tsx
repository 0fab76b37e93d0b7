"use client";
// An advertiser's catalogue of products (SKUs its campaigns and ads promote).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZCreateProductInput } from "@/server/campaigns/product-input";
import { useTRPC } from "../../trpc-client";
import { money } from "../figures";
import { firstProblem } from "./first-problem";

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function Products({ advertiserId, currency }: { advertiserId: string; currency: string }) {
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
      <Problem message={problem} />
      <Problem message={create.error?.message} />
    </>
  );
}
