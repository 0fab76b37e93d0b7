"use client";
// Create or edit an ad, checked with the server's schema first, with a preview of its media. It
// offers the ad kinds the campaign runs and the campaign's own products only; the server's
// refusal of either (src/server/campaigns/campaign-references.ts) is shown beside its field. On a
// draft campaign, a new ad offers to start the campaign with it (create-ad.ts).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { FieldProblem, Problem } from "@/app/problem";
import { AD_TYPES_OF_CAMPAIGN, type TAdSettings, ZAdSettings } from "@/server/campaigns/ad-input";
import { Busy } from "../../../query-state";
import { useTRPC } from "../../../trpc-client";

type Form = { name: string; type: string; size: string; mediaUrl: string; destinationUrl: string; status: string; productRefs: string[] };
export const NEW_AD: Form = { name: "", type: "product", size: "", mediaUrl: "", destinationUrl: "", status: "active", productRefs: [] };
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
  const [startCampaign, setStartCampaign] = useState(true);
  const finish = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() });
    onDone();
  };
  const create = useMutation(trpc.ads.create.mutationOptions({ onSuccess: finish }));
  const update = useMutation(trpc.ads.update.mutationOptions({ onSuccess: finish }));
  const failure = create.error ?? update.error;
  // A refusal about fields (the ad's kind, a product not the campaign's) goes beside them.
  const refused = failure?.data?.fieldErrors ?? {};
  const fieldErrors: Record<string, string> = { ...refused, ...errors };
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
  if (!current) return existing.error ? <Problem about="The ad could not be loaded" message={existing.error.message} /> : <Busy what="the ad" />;
  // The campaign's products, and any the ad kept from before the rule, so that it can be unticked.
  const campaignProducts = (options.data?.products ?? []).filter((p) => campaign.data?.productRefs.includes(p.id) || current.productRefs.includes(p.id));
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm({ ...current, [key]: value });
    setErrors(({ [key]: _dropped, ...rest }) => rest);
    if (key in refused) {
      create.reset();
      update.reset();
    }
  };
  // The server's refusal arrives after the submit, so it is announced; the schema's are there at once.
  const fieldError = (key: string, label: string) => (
    <FieldProblem id={`ad-${key}-error`} label={label} message={fieldErrors[key]} announce={key in refused && !(key in errors)} />
  );
  // Only a draft starts with its first ad; a paused or ended campaign is resumed on its own page.
  const offersStart = !adId && campaign.data?.status === "draft";

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
    else create.mutate({ campaignId, ...settings, activateCampaign: offersStart && startCampaign });
  };
  const text = (key: "name" | "size" | "mediaUrl" | "destinationUrl", label: string, placeholder = "") => (
    <div className="field">
      <label>
        {label}
        <input
          value={current[key]}
          placeholder={placeholder}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={fieldErrors[key] ? true : undefined}
          aria-describedby={fieldErrors[key] ? `ad-${key}-error` : undefined}
        />
      </label>
      {fieldError(key, label)}
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
      {offersStart ? (
        <label className="check">
          <input type="checkbox" checked={startCampaign} onChange={(e) => setStartCampaign(e.target.checked)} /> Start the campaign with this ad (it is a draft
          until then)
        </label>
      ) : null}
      <Problem about="The ad was not saved" message={failure && Object.keys(refused).length === 0 ? failure.message : null} />
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
