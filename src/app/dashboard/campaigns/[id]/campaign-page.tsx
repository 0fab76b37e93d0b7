"use client";
// One campaign: its totals and daily charts over a range, its ads, and the XLSX download of its
// daily rows through the report route (GET /campaign/:id?download=true, with the session cookie).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Problem } from "@/app/problem";
import { useTRPC } from "../../../trpc-client";
import { DailyCharts, KpiCards, lastDays, money, percent, RangePicker, whole } from "../../figures";
import { PacingCards } from "../pacing-cells";
import { AdForm } from "./ad-form";
import { CampaignActivity } from "./campaign-activity";
import { CampaignWindows } from "./campaign-windows";

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function CampaignPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useState(() => lastDays(30));
  const queryClient = useQueryClient();
  const campaign = useQuery(trpc.campaigns.get.queryOptions({ id, ...range }));
  const setStatus = useMutation(
    trpc.campaigns.setStatus.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() }) }),
  );
  const [adForm, setAdForm] = useState<string | "new" | null>(null);
  const adStatus = useMutation(
    trpc.ads.setStatus.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() }) }),
  );
  const download = `/campaign/${encodeURIComponent(id)}?start_date=${range.startDate}&end_date=${range.endDate}&download=true`;

  if (campaign.error) {
    return (
      <>
        <p>
          <Link href="/dashboard/campaigns">← Campaigns</Link>
        </p>
        <p role="alert" className="error">
          {campaign.error.data?.code === "NOT_FOUND"
            ? "There is no such campaign, or it is not one of this account's."
            : `The campaign could not be loaded: ${campaign.error.message}`}
        </p>
      </>
    );
  }
  if (!campaign.data)
    return (
      <p aria-busy="true" className="muted">
        Loading the campaign…
      </p>
    );
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
        {c.campaign_status === "active" || c.campaign_status === "paused" ? (
          <button
            type="button"
            className="chip"
            disabled={setStatus.isPending}
            onClick={() => setStatus.mutate({ id, status: c.campaign_status === "active" ? "paused" : "active" })}
          >
            {c.campaign_status === "active" ? "Pause" : "Resume"}
          </button>
        ) : null}
        <Link className="chip" href={`/dashboard/campaigns/${encodeURIComponent(id)}/edit`}>
          Edit
        </Link>
      </form>
      <Problem message={setStatus.error?.message} />
      <PacingCards pacing={c.pacing} wallet={c.wallet} />
      <KpiCards total={c} />
      <CampaignWindows campaignId={id} campaignType={c.campaign_type} />
      <DailyCharts daily={c.daily} />
      <h2>Ads</h2>
      {adForm === null ? (
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
        <p className="empty">This campaign has no ads yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <caption className="visually-hidden">Ads of {c.name}</caption>
            <thead>
              <tr>
                <th scope="col">Ad</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Media</th>
                <th scope="col">Impressions</th>
                <th scope="col">Clicks</th>
                <th scope="col">CTR</th>
                <th scope="col">Spend</th>
                <th scope="col">Sales</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {c.ads.map((ad) => (
                <tr key={ad.ad_id}>
                  <td>{ad.name}</td>
                  <td>
                    {ad.ad_type}
                    {ad.ad_size ? ` ${ad.ad_size}` : ""}
                  </td>
                  <td>
                    <span className={`badge ${ad.ad_status}`}>{ad.ad_status}</span>
                  </td>
                  <td>{ad.ad_media_url ? <img src={ad.ad_media_url} alt={`${ad.name} creative`} className="thumb" /> : ad.product_sku}</td>
                  <td>{whole.format(ad.impressions_total)}</td>
                  <td>{whole.format(ad.clicks_total)}</td>
                  <td>{percent.format(ad.ctr)}</td>
                  <td>{money.format(ad.ad_revenue)}</td>
                  <td>{money.format(ad.sales_revenue)}</td>
                  <td className="row-buttons">
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
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {c.ads_total > c.ads.length ? (
        <p className="muted">
          Showing {c.ads.length} of {c.ads_total} ads.
        </p>
      ) : null}
      <CampaignActivity campaignId={id} />
    </>
  );
}
