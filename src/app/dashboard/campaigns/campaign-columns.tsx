"use client";
// The campaign list's columns: what each holds raw (for sorting, totals and files) and how its cell reads.
import Link from "next/link";
import type { CampaignListingRow } from "@/server/store/report-rows";
import { metricColumns } from "../metric-columns";
import type { TableColumn } from "../table-columns";

export const campaignColumns: TableColumn<CampaignListingRow>[] = [
  {
    id: "name",
    label: "Campaign",
    kind: "text",
    value: (c) => c.name,
    cell: (c) => <Link href={`/dashboard/campaigns/${encodeURIComponent(c.campaign_id)}`}>{c.name}</Link>,
  },
  {
    id: "campaign_status",
    label: "Status",
    kind: "text",
    value: (c) => c.campaign_status,
    cell: (c) => <span className={`badge ${c.campaign_status}`}>{c.campaign_status}</span>,
  },
  { id: "campaign_type", label: "Type", kind: "text", value: (c) => c.campaign_type },
  ...metricColumns<CampaignListingRow>(["impressions_total", "clicks_total", "ctr", "ad_revenue", "conversions_total", "sales_revenue", "roas"]),
];
