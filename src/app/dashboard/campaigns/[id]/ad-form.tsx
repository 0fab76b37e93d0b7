"use client";
// Create or edit an ad, checked with the server's schema first, with a preview of its media. It
// offers the ad kinds the campaign runs and the campaign's own products only; the server's
// refusal of either (src/server/campaigns/campaign-references.ts) is shown beside its field.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { AD_TYPES_OF_CAMPAIGN, type TAdSettings, ZAdSettings } from "@/server/campaigns/ad-input";
import { useTRPC } from "../../../trpc-client";

type Form = { name: string; type: string; size: string; mediaUrl: string; destinationUrl: string; status: string; productRefs: string[] };
export const NEW_AD: Form = { name: "", type: "product", size: "", mediaUrl: "", destinationUrl: "", status: "active", productRefs: [] };
// A refusal that needs the database names its field first ("productRefs: SKU … is not one of the campaign's products").
const FIELD_REFUSAL = /^(type|productRefs): (.+)$/s;
const adTypesOf = (campaignType: string): readonly string[] =>
  AD_TYPES_OF_CAMPAIGN[campaignType as keyof typeof AD_TYPES_OF_CAMPAIGN] ?? ["product", "banner", "video"];

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function AdForm({
  campaignId,
  campaignType,
  advertiserId,
  adId,
  onDone,
}: {
  campaignId: string;
  campaignType: string;
  advertiserId: string;
  adId?: string;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = useQuery(trpc.campaigns.formOptions.queryOptions({ advertiserId }));
  const campaign = useQuery(trpc.campaigns.settings.queryOptions({ id: campaignId }));
  const adTypes = adTypesOf(campaignType);
  const existing = useQuery({ ...trpc.ads.settings.queryOptions({ id: adId ?? "" }), enabled: adId !== undefined });
  const [form, setForm] = useState<Form | null>(adId ? null : { ...NEW_AD, type: adTypesOf(campaignType)[0] ?? "product" });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const finish = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() });
    onDone();
  };
  const create = useMutation(trpc.ads.create.mutationOptions({ onSuccess: finish }));
  const update = useMutation(trpc.ads.update.mutationOptions({ onSuccess: finish }));
  const serverError = create.error?.message ?? update.error?.message;
  const refusal = serverError?.match(FIELD_REFUSAL);
  const fieldErrors: Record<string, string> = refusal ? { ...errors, [refusal[1]!]: refusal[2]! } : errors;
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
  // The campaign's products, and any the ad kept from before the rule, so that it can be unticked.
  const campaignProducts = (options.data?.products ?? []).filter((p) => campaign.data?.productRefs.includes(p.id) || current.productRefs.includes(p.id));
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm({ ...current, [key]: value });
    setErrors(({ [key]: _dropped, ...rest }) => rest);
    if (refusal?.[1] === key) {
      create.reset();
      update.reset();
    }
  };
  const fieldError = (key: string, label: string) =>
    fieldErrors[key] ? (
      <span id={`ad-${key}-error`} className="error" role={refusal?.[1] === key ? "alert" : undefined}>
        {label} {fieldErrors[key]}
      </span>
    ) : null;

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
        <div className="field">
          <label>
            Ad type
            <select
              value={current.type}
              onChange={(e) => set("type", e.target.value)}
              aria-invalid={fieldErrors.type ? true : undefined}
              aria-describedby={fieldErrors.type ? "ad-type-error" : undefined}
            >
              {/* An ad kept from before the rule may be of another kind: it stays shown, so that it can be changed. */}
              {[...new Set([...adTypes, current.type])].map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          {fieldError("type", "Ad type:")}
        </div>
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
        <p className="muted">The campaign&apos;s own products; none ticked: the ad shows the campaign&apos;s.</p>
        {campaign.data && campaignProducts.length === 0 ? <span className="muted">The campaign promotes no products.</span> : null}
        {campaignProducts.map((p) => (
          <label key={p.id} className="check">
            <input
              type="checkbox"
              checked={current.productRefs.includes(p.id)}
              onChange={(e) => set("productRefs", e.target.checked ? [...current.productRefs, p.id] : current.productRefs.filter((x) => x !== p.id))}
              aria-invalid={fieldErrors.productRefs ? true : undefined}
              aria-describedby={fieldErrors.productRefs ? "ad-productRefs-error" : undefined}
            />{" "}
            {p.name} <code>{p.sku}</code>
          </label>
        ))}
        {fieldError("productRefs", "Products:")}
      </fieldset>
      {serverError && !refusal ? (
        <p role="alert" className="error">
          {serverError}
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
