// The columns of a daily figures table (the overview's, the campaign page's): the day and the main figures.
import type { DayMetrics } from "@/server/store/report-rows";
import { metricColumns } from "./metric-columns";
import type { TableColumn } from "./table-columns";

export const dailyColumns: TableColumn<DayMetrics>[] = [
  { id: "day", label: "Day", kind: "date", value: (d) => d.day },
  ...metricColumns<DayMetrics>(["impressions_total", "clicks_total", "ctr", "ad_revenue", "conversions_total", "sales_revenue", "roas"]),
];
