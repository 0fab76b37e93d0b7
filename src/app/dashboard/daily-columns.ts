// The columns of a daily figures table (the overview's, the campaign page's): the day, the main
// figures, and every other metric in the column chooser, in the reader's words.
import type { Audience } from "@/server/store/metric-columns";
import type { DayMetrics } from "@/server/store/report-rows";
import { metricColumns } from "./metric-columns";
import type { TableColumn } from "./table-columns";

const SHOWN = ["impressions_total", "clicks_total", "ctr", "ad_revenue", "conversions_total", "sales_revenue", "roas"] as const;

// One array per audience, made once: the table keeps its memos while the page renders again.
const BY_AUDIENCE: Record<Audience, TableColumn<DayMetrics>[]> = {
  advertiser: [{ id: "day", label: "Day", kind: "date", value: (d) => d.day }, ...metricColumns<DayMetrics>(SHOWN, "advertiser")],
  publisher: [{ id: "day", label: "Day", kind: "date", value: (d) => d.day }, ...metricColumns<DayMetrics>(SHOWN, "publisher")],
};

export const dailyColumns = (audience: Audience = "advertiser") => BY_AUDIENCE[audience];
