"use client";
// The campaign list's columns: what each holds raw (for sorting, totals and files) and how its cell
// reads. The advertiser's column is there when the list holds several advertisers' campaigns.
import Link from "next/link";
import type { CampaignPacing } from "@/server/campaigns/pacing-output";
import type { Audience } from "@/server/store/metric-columns";
import type { CampaignListingRow } from "@/server/store/report-rows";
import { metricColumns } from "../metric-columns";
import type { TableColumn } from "../table-columns";
import styles from "./pacing.module.css";
import { BidCell, BudgetCell, PacingBar, PacingFlags } from "./pacing-cells";

/** A row of the list: its figures over the range, and today's pacing when the viewer manages the campaign. */
export type CampaignRow = CampaignListingRow & { pacing: CampaignPacing | null };

/** The serving flags in words, for sorting and files. */
const servingWords = (p: CampaignPacing | null) =>
  p === null ? null : [p.outOfBudgetToday ? "Out of budget today" : "", p.activeWithoutActiveAds ? "No active ads" : ""].filter(Boolean).join(", ") || null;

/** The bid's model ("CPC"), which the table says in the bid's cell and the files in a column beside the amount. */
export const bidModelColumn: TableColumn<CampaignRow> = {
  id: "bid_model",
  label: "Bid model",
  kind: "text",
  value: (c) => c.pacing?.bidModel.toUpperCase() ?? null,
};

/**
 * The list's columns, in the words of `audience` (a publisher reads ad revenue where an advertiser
 * reads spend); with `advertiserName`, an Advertiser column after the campaign's name.
 */
export const campaignColumns = (audience: Audience, advertiserName?: (advertiserId: string) => string): TableColumn<CampaignRow>[] => [
  {
    id: "name",
    label: "Campaign",
    kind: "text",
    value: (c) => c.name,
    cell: (c) => (
      <Link className={styles.name} href={`/dashboard/campaigns/${encodeURIComponent(c.campaign_id)}`}>
        {c.name}
      </Link>
    ),
  },
  ...(advertiserName ? [{ id: "advertiser", label: "Advertiser", kind: "text" as const, value: (c: CampaignRow) => advertiserName(c.advertiser_id) }] : []),
  {
    id: "campaign_status",
    label: "Status",
    kind: "text",
    value: (c) => c.campaign_status,
    cell: (c) => <span className={`badge ${c.campaign_status}`}>{c.campaign_status}</span>,
  },
  { id: "campaign_type", label: "Type", kind: "text", value: (c) => c.campaign_type },
  ...metricColumns<CampaignRow>(["impressions_total", "clicks_total", "ctr", "ad_revenue", "conversions_total", "sales_revenue", "roas"], audience),
  // Budget and pacing (src/server/campaigns/pacing.ts): "—" where the viewer does not manage the campaign.
  { id: "bid", label: "Bid", kind: "money", value: (c) => c.pacing?.bid ?? null, cell: (c) => (c.pacing ? <BidCell pacing={c.pacing} /> : "—") },
  {
    id: "daily_budget",
    label: "Daily budget",
    kind: "money",
    value: (c) => c.pacing?.dailyBudget ?? null,
    cell: (c) => (c.pacing ? <BudgetCell pacing={c.pacing} /> : "—"),
  },
  {
    id: "spent_today",
    label: "Spend today",
    kind: "money",
    value: (c) => c.pacing?.spentToday ?? null,
    cell: (c) => (c.pacing ? <PacingBar pacing={c.pacing} /> : "—"),
    total: "sum",
  },
  { id: "serving", label: "Serving", kind: "text", value: (c) => servingWords(c.pacing), cell: (c) => (c.pacing ? <PacingFlags pacing={c.pacing} /> : null) },
];
