"use client";
// Create or edit an ad, checked with the server's schema first, with a preview of its media.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type TAdSettings, ZAdSettings } from "@/server/campaigns/ad-input";
import { useTRPC } from "../../../trpc-client";

type Form = { name: string; type: string; size: string; mediaUrl: string; destinationUrl: string; status: string; productRefs: string[] };
export const NEW_AD: Form = { name: "", type: "product", size: "", mediaUrl: "", destinationUrl: "", status: "active", productRefs: [] };

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function AdForm({ campaignId, advertiserId, adId, onDone }: { campaignId: string; advertiserId: string; adId?: string; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = useQuery(trpc.campaigns.formOptions.queryOptions({ advertiserId }));
  const existing = useQuery({ ...trpc.ads.settings.queryOptions({ id: adId ?? "" }), enabled: adId !== undefined });
  const [form, setForm] = useState<Form | null>(adId ? null : NEW_AD);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const finish = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() });
    onDone();
  };
  const create = useMutation(trpc.ads.create.mutationOptions({ onSuccess: finish }));
  const update = useMutation(trpc.ads.update.mutationOptions({ onSuccess: finish }));
  const current: Form | null =
    form ??
    (existing.data
      ? {
          ...NEW_AD,
          ...existing.data,
          size: existing.data.size ?? "",
          mediaUrl: existing.data.mediaUrl ?? "",
          destinationUrl: existing.data.destinationUrl ?? "",
        }
      : null);
  if (!current)
    return (
      <p aria-busy="true" className="muted">
        Loading the ad…
      </p>
    );
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm({ ...current, [key]: value });
    setErrors(({ [key]: _dropped, ...rest }) => rest);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const settings = {
      name: current.name,
      type: current.type,
      size: current.size || undefined,
      mediaUrl: current.mediaUrl || undefined,
      destinationUrl: current.destinationUrl || undefined,
      status: current.status,
      productRefs: current.productRefs,
    } as TAdSettings;
    const parsed = ZAdSettings.safeParse(settings);
    if (!parsed.success) return setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message])));
    if (adId) update.mutate({ id: adId, settings });
    else create.mutate({ campaignId, ...settings });
  };
  const text = (key: "name" | "size" | "mediaUrl" | "destinationUrl", label: string, placeholder = "") => (
    <div className="field">
      <label>
        {label}
        <input
          value={current[key]}
          placeholder={placeholder}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={errors[key] ? true : undefined}
          aria-describedby={errors[key] ? `ad-${key}-error` : undefined}
        />
      </label>
      {errors[key] ? (
        <span id={`ad-${key}-error`} className="error">
          {label} {errors[key]}
        </span>
      ) : null}
    </div>
  );

  return (
    <form className="form panel" noValidate onSubmit={submit} aria-label={adId ? "Edit ad" : "New ad"}>
      <div className="row">
        {text("name", "Ad name")}
        <label>
          Ad type
          <select value={current.type} onChange={(e) => set("type", e.target.value)}>
            {["product", "banner", "video"].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Ad status
          <select value={current.status} onChange={(e) => set("status", e.target.value)}>
            {["active", "paused", "archived"].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
      </div>
      <div className="row">
        {text("size", "Size", "300x250")}
        {text("mediaUrl", "Media address", "/demo/media/banner-300x250.svg")}
        {text("destinationUrl", "Landing page", "https://shop.example/product")}
      </div>
      {current.mediaUrl && current.type !== "product" ? (
        <figure className="preview">
          {current.type === "video" ? (
            <video src={current.mediaUrl} controls muted aria-label="Media preview" />
          ) : (
            <img src={current.mediaUrl} alt="Media preview" />
          )}
          <figcaption className="muted">Preview {current.size}</figcaption>
        </figure>
      ) : null}
      <fieldset>
        <legend>Products in the ad</legend>
        {(options.data?.products ?? []).map((p) => (
          <label key={p.id} className="check">
            <input
              type="checkbox"
              checked={current.productRefs.includes(p.id)}
              onChange={(e) => set("productRefs", e.target.checked ? [...current.productRefs, p.id] : current.productRefs.filter((x) => x !== p.id))}
            />{" "}
            {p.name} <code>{p.sku}</code>
          </label>
        ))}
      </fieldset>
      {create.error || update.error ? (
        <p role="alert" className="error">
          {(create.error ?? update.error)!.message}
        </p>
      ) : null}
      <div className="row-buttons">
        <button type="submit" className="button" disabled={create.isPending || update.isPending}>
          {adId ? "Save ad" : "Create ad"}
        </button>
        <button type="button" className="link-button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
