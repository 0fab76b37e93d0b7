"use client";
// One campaign: its totals against the period before and daily charts over a range, its days and
// ads as tables (sort, columns and range in the address), and the XLSX download of its daily rows
// through the report route (GET /campaign/:id?download=true, with the session cookie).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Problem } from "@/app/problem";
import { Busy, Empty } from "@/app/query-state";
import { budgetBelowBid } from "@/server/campaigns/budget-warning";
import { useTRPC } from "../../../trpc-client";
import { useAudience, useCurrency } from "../../currency";
import { DailyCharts } from "../../daily-charts";
import { dailyColumns } from "../../daily-columns";
import { DataTable } from "../../data-table";
import { RangePicker } from "../../figures";
import { HoursHeatmap } from "../../hours-heatmap";
import { KpiCards } from "../../kpi-cards";
import { useMayChange } from "../../may-change";
import { useUrlRange } from "../../url-state";
import { PacingCards } from "../pacing-cells";
import { adColumns } from "./ad-columns";
import { AdForm } from "./ad-form";
import { CampaignActivity } from "./campaign-activity";
import { CampaignWindows } from "./campaign-windows";
import { NegativeTerms } from "./negative-terms";

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function CampaignPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const queryClient = useQueryClient();
  const campaign = useQuery(trpc.campaigns.get.queryOptions({ id, ...range }));
  const setStatus = useMutation(
    trpc.campaigns.setStatus.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() }) }),
  );
  const [adForm, setAdForm] = useState<string | "new" | null>(null);
  const adStatus = useMutation(
    trpc.ads.setStatus.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() }) }),
  );
  const currency = useCurrency(campaign.data?.advertiser_id ?? "");
  // A publisher's user reads a campaign on its site in its own words (spend is its revenue).
  const audience = useAudience("");
  const mayChange = useMayChange(campaign.data?.advertiser_id ?? "");
  const download = `/campaign/${encodeURIComponent(id)}?start_date=${range.startDate}&end_date=${range.endDate}&download=true`;

  if (campaign.error) {
    return (
      <>
        <p>
          <Link href="/dashboard/campaigns">← Campaigns</Link>
        </p>
        {campaign.error.data?.code === "NOT_FOUND" ? (
          <Problem message="There is no such campaign, or it is not one of this account's." />
        ) : (
          <Problem about="The campaign could not be loaded" message={campaign.error.message} />
        )}
      </>
    );
  }
  if (!campaign.data) return <Busy what="the campaign" />;
  const c = campaign.data;
  return (
    <>
      <p>
        <Link href="/dashboard/campaigns">← Campaigns</Link>
      </p>
      <h1>{c.name}</h1>
      <p className="muted">
        <span className={`badge ${c.campaign_status}`}>{c.campaign_status}</span> {c.campaign_type} campaign · {c.start_date} to {c.end_date ?? "no end"} ·{" "}
        {c.campaign_id}
      </p>
      <form className="toolbar" aria-label="Range" onSubmit={(e) => e.preventDefault()}>
        <RangePicker range={range} onChange={setRange} />
        <a className="button" href={download} download>
          Download XLSX
        </a>
        {mayChange && (c.campaign_status === "active" || c.campaign_status === "paused") ? (
          <button
            type="button"
            className="chip"
            disabled={setStatus.isPending}
            onClick={() => setStatus.mutate({ id, status: c.campaign_status === "active" ? "paused" : "active" })}
          >
            {c.campaign_status === "active" ? "Pause" : "Resume"}
          </button>
        ) : null}
        {mayChange ? (
          <Link className="chip" href={`/dashboard/campaigns/${encodeURIComponent(id)}/edit`}>
            Edit
          </Link>
        ) : null}
      </form>
      <Problem message={setStatus.error?.message} />
      {c.pacing && budgetBelowBid(c.pacing) ? (
        <p role="status" className="notice" data-testid="budget-warning">
          {budgetBelowBid(c.pacing)}
        </p>
      ) : null}
      <PacingCards pacing={c.pacing} wallet={c.wallet} />
      <KpiCards total={c} previous={c.previous} currency={currency} audience={audience} started={c.start_date} start="this campaign started" />
      <CampaignWindows campaignId={id} campaignType={c.campaign_type} />
      <DailyCharts daily={c.daily} previous={c.previous?.daily} currency={currency} audience={audience} />
      <h2>By day</h2>
      <DataTable
        caption={`${c.name} by day from ${range.startDate} to ${range.endDate}`}
        columns={dailyColumns(audience)}
        rows={c.daily}
        rowKey={(day) => day.day}
        currency={currency}
        defaultSort={{ id: "day", descending: false }}
        fileName={`campaign-days-${range.startDate}-${range.endDate}`}
        sheet="By day"
        urlPrefix="days_"
      />
      <HoursHeatmap
        range={range}
        campaignId={id}
        currency={currency}
        audience={audience}
        fileName={`campaign-${c.campaign_id}`
          .toLowerCase()
          .replace(/[^a-z0-9_-]/g, "-")
          .slice(0, 40)}
      />
      <h2>Ads</h2>
      {mayChange && adForm === null ? (
        <div className="toolbar">
          <button type="button" className="button" onClick={() => setAdForm("new")}>
            New ad
          </button>
        </div>
      ) : null}
      {adForm !== null ? (
        <AdForm
          key={adForm}
          campaignId={id}
          campaignType={c.campaign_type}
          advertiserId={c.advertiser_id}
          adId={adForm === "new" ? undefined : adForm}
          onDone={() => setAdForm(null)}
        />
      ) : null}
      <Problem message={adStatus.error?.message} />
      {c.ads.length === 0 ? (
        <Empty>This campaign has no ads yet.</Empty>
      ) : (
        <DataTable
          caption={`Ads of ${c.name}`}
          columns={adColumns(audience)}
          rows={c.ads}
          rowKey={(ad) => ad.ad_id}
          currency={currency}
          defaultSort={{ id: "impressions_total", descending: true }}
          fileName={`ads-${range.startDate}-${range.endDate}`}
          sheet="Ads"
          actions={
            mayChange
              ? (ad) => (
                  <>
                    {ad.ad_status === "active" || ad.ad_status === "paused" ? (
                      <button
                        type="button"
                        className="link-button"
                        disabled={adStatus.isPending}
                        onClick={() => adStatus.mutate({ id: ad.ad_id, status: ad.ad_status === "active" ? "paused" : "active" })}
                      >
                        {ad.ad_status === "active" ? "Pause" : "Activate"}
                        <span className="visually-hidden"> {ad.name}</span>
                      </button>
                    ) : null}
                    <button type="button" className="link-button" onClick={() => setAdForm(ad.ad_id)}>
                      Edit<span className="visually-hidden"> {ad.name}</span>
                    </button>
                  </>
                )
              : undefined
          }
        />
      )}
      {c.ads_total > c.ads.length ? (
        <p className="muted">
          Showing {c.ads.length} of {c.ads_total} ads.
        </p>
      ) : null}
      <NegativeTerms campaignId={id} advertiserId={c.advertiser_id} />
      <CampaignActivity campaignId={id} />
    </>
  );
}
