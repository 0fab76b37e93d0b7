"use client";
// The ads table's columns on the campaign page: what each holds raw and how its cell reads.
import type { Audience } from "@/server/store/metric-columns";
import type { AdResultsRow } from "@/server/store/report-rows";
import { metricColumns } from "../../metric-columns";
import type { TableColumn } from "../../table-columns";

const columnsFor = (audience: Audience): TableColumn<AdResultsRow>[] => [
  { id: "name", label: "Ad", kind: "text", value: (ad) => ad.name },
  { id: "ad_type", label: "Type", kind: "text", value: (ad) => (ad.ad_size ? `${ad.ad_type} ${ad.ad_size}` : ad.ad_type) },
  {
    id: "ad_status",
    label: "Status",
    kind: "text",
    value: (ad) => ad.ad_status,
    cell: (ad) => <span className={`badge ${ad.ad_status}`}>{ad.ad_status}</span>,
  },
  {
    id: "media",
    label: "Media",
    kind: "text",
    value: (ad) => ad.ad_media_url ?? ad.product_sku,
    cell: (ad) => (ad.ad_media_url ? <img src={ad.ad_media_url} alt={`${ad.name} creative`} className="thumb" /> : ad.product_sku),
  },
  ...metricColumns<AdResultsRow>(["impressions_total", "clicks_total", "ctr", "ad_revenue", "sales_revenue"], audience),
];

const BY_AUDIENCE: Record<Audience, TableColumn<AdResultsRow>[]> = { advertiser: columnsFor("advertiser"), publisher: columnsFor("publisher") };
/** In the words of `audience` (a publisher reads ad revenue where an advertiser reads spend); the same array each time, as a table's columns should be. */
export const adColumns = (audience: Audience) => BY_AUDIENCE[audience];
