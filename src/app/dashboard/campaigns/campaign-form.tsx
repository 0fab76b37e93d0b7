"use client";
// Create or edit a campaign, checked with the server's own schema before it is sent. A new one
// starts as a draft (or paused): its first ad starts it (src/server/campaigns/campaign-references.ts).
// A daily budget under one bid is warned about, not refused (budget-warning.ts).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { FieldProblem, Problem } from "@/app/problem";
import { budgetBelowBid } from "@/server/campaigns/budget-warning";
import { type TCampaignSettings, ZCampaignSettings } from "@/server/campaigns/campaign-input";
import { utcDay } from "@/server/core/days";
import { useTRPC } from "../../trpc-client";

type Form = {
  name: string;
  type: string;
  status: string;
  startDate: string;
  endDate: string;
  bidModel: string;
  bid: string;
  dailyBudget: string;
  publisherIds: string[];
  productRefs: string[];
};

export const NEW_CAMPAIGN: Form = {
  name: "",
  type: "product",
  status: "draft",
  startDate: utcDay(),
  endDate: "",
  bidModel: "cpc",
  bid: "",
  dailyBudget: "",
  publisherIds: [],
  productRefs: [],
};
export const formOfSettings = (s: {
  name: string;
  type: string;
  status: string;
  startDate: string;
  endDate?: string;
  bidModel: string;
  bid: number;
  dailyBudget?: number;
  publisherIds: string[];
  productRefs: string[];
}): Form => ({
  ...s,
  endDate: s.endDate ?? "",
  bid: String(s.bid),
  dailyBudget: s.dailyBudget === undefined ? "" : String(s.dailyBudget),
});

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function CampaignForm({ advertiserId, campaignId, initial }: { advertiserId: string; campaignId?: string; initial: Form }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const options = useQuery(trpc.campaigns.formOptions.queryOptions({ advertiserId }));
  const queryClient = useQueryClient();
  // The campaign's page and the list may be cached from before the save: they show the bid and budget just saved.
  const done = (result: { id: string }) => {
    void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() });
    router.push(`/dashboard/campaigns/${encodeURIComponent(result.id)}`);
  };
  const create = useMutation(trpc.campaigns.create.mutationOptions({ onSuccess: done }));
  const update = useMutation(trpc.campaigns.update.mutationOptions({ onSuccess: done }));
  const pending = create.isPending || update.isPending;
  const failure = create.error ?? update.error;
  // A refusal about fields (the server's schema or its rules: whose SKU, no ad yet) goes beside them.
  const refused = failure?.data?.fieldErrors ?? {};
  const fieldErrors: Record<string, string> = { ...refused, ...errors };
  // Editing a field takes its complaint away until the next check.
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setForm((old) => ({ ...old, [key]: value }));
    setErrors(({ [key]: _dropped, ...rest }) => rest);
    // Which publishers and which products: either can settle whose SKU it is.
    if (key in refused || (("publisherIds" in refused || "productRefs" in refused) && (key === "publisherIds" || key === "productRefs"))) {
      create.reset();
      update.reset();
    }
  };
  const toggle = (key: "publisherIds" | "productRefs", id: string, on: boolean) => set(key, on ? [...form[key], id] : form[key].filter((x) => x !== id));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const settings = {
      name: form.name,
      type: form.type,
      status: form.status,
      startDate: form.startDate,
      endDate: form.endDate || undefined,
      bidModel: form.bidModel,
      bid: form.bid === "" ? Number.NaN : Number(form.bid),
      dailyBudget: form.dailyBudget === "" ? undefined : Number(form.dailyBudget),
      publisherIds: form.publisherIds,
      productRefs: form.productRefs,
    } as TCampaignSettings;
    const parsed = ZCampaignSettings.safeParse(settings);
    if (!parsed.success) return setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message])));
    setErrors({});
    if (campaignId) update.mutate({ id: campaignId, settings });
    else create.mutate({ advertiserId, ...settings });
  };

  // The server's refusal arrives after the submit, so it is announced; the schema's are there at once.
  const error = (key: string, label: string) => (
    <FieldProblem id={`${key}-error`} label={label} message={fieldErrors[key]} announce={key in refused && !(key in errors)} />
  );
  const budgetWarning = budgetBelowBid({
    bidModel: form.bidModel,
    bid: form.bid === "" ? Number.NaN : Number(form.bid),
    dailyBudget: form.dailyBudget === "" ? null : Number(form.dailyBudget),
  });
  // A new campaign has no ad yet, so it cannot start: it waits as a draft (or paused) for its first ad.
  const statuses = campaignId ? ["draft", "active", "paused", "ended", "archived"] : ["draft", "paused"];
  const input = (key: "name" | "startDate" | "endDate" | "bid" | "dailyBudget", label: string, type = "text") => (
    <div className="field">
      <label>
        {label}
        <input
          type={type}
          step={type === "number" ? "0.01" : undefined}
          min={type === "number" ? "0" : undefined}
          value={form[key]}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={fieldErrors[key] ? true : undefined}
          aria-describedby={
            [fieldErrors[key] ? `${key}-error` : "", key === "dailyBudget" && budgetWarning ? "budget-warning" : ""].join(" ").trim() || undefined
          }
        />
      </label>
      {error(key, label)}
    </div>
  );
  const select = (key: "type" | "status" | "bidModel", label: string, values: string[]) => (
    <div className="field">
      <label>
        {label}
        <select
          value={form[key]}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={fieldErrors[key] ? true : undefined}
          aria-describedby={fieldErrors[key] ? `${key}-error` : undefined}
        >
          {values.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      {error(key, `${label}:`)}
    </div>
  );

  return (
    <form className="form panel" noValidate onSubmit={submit} aria-label={campaignId ? "Edit campaign" : "New campaign"}>
      {input("name", "Name")}
      <div className="row">
        {select("type", "Type", ["product", "display", "video"])}
        {select("status", "Status", statuses)}
      </div>
      {campaignId ? null : <p className="muted">A new campaign waits as a draft until its first ad: adding that ad can start it.</p>}
      <div className="row">
        {input("startDate", "Start date", "date")}
        {input("endDate", "End date (optional)", "date")}
      </div>
      <div className="row">
        {select("bidModel", "Bid model", ["cpc", "cpm"])}
        {input("bid", form.bidModel === "cpm" ? "Bid per 1,000 impressions" : "Bid per click", "number")}
        {input("dailyBudget", "Daily budget (optional)", "number")}
      </div>
      {budgetWarning ? (
        <p id="budget-warning" role="status" className="notice" data-testid="budget-warning">
          {budgetWarning} You can still save it.
        </p>
      ) : null}
      <fieldset>
        <legend>Where it runs</legend>
        {(options.data?.publishers ?? []).map((p) => (
          <label key={p.id} className="check">
            <input type="checkbox" checked={form.publisherIds.includes(p.id)} onChange={(e) => toggle("publisherIds", p.id, e.target.checked)} /> {p.name}
            {p.kind === "network" ? " (network: all its sub-publishers)" : ""}
          </label>
        ))}
        {error("publisherIds", "Publishers:")}
      </fieldset>
      <fieldset>
        <legend>Products it promotes</legend>
        <p className="muted">
          On each publisher a SKU belongs to one advertiser: a SKU that another advertiser&apos;s campaign already promotes there, or that the publisher&apos;s
          catalogue lists as theirs, cannot be added.
        </p>
        {(options.data?.products ?? []).length === 0 ? <span className="muted">This advertiser has no products yet.</span> : null}
        {(options.data?.products ?? []).map((p) => (
          <label key={p.id} className="check">
            <input
              type="checkbox"
              checked={form.productRefs.includes(p.id)}
              onChange={(e) => toggle("productRefs", p.id, e.target.checked)}
              aria-invalid={fieldErrors.productRefs ? true : undefined}
              aria-describedby={fieldErrors.productRefs ? "productRefs-error" : undefined}
            />{" "}
            {p.name} <code>{p.sku}</code>
          </label>
        ))}
        {error("productRefs", "Products:")}
      </fieldset>
      <Problem about="The campaign was not saved" message={failure && Object.keys(refused).length === 0 ? failure.message : null} />
      <div className="row-buttons">
        <button type="submit" className="button" disabled={pending}>
          {pending ? "Saving…" : campaignId ? "Save changes" : "Create campaign"}
        </button>
        <button type="button" className="link-button" onClick={() => router.back()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
