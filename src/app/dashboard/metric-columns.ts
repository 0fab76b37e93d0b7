// The figure columns every dashboard table of report rows offers: counts and money summed in the
// totals row, ratios recomputed from those sums.
import type { Metrics } from "@/server/store/metrics";
import { ratioOf, type TableColumn } from "./table-columns";

type MetricColumn = Omit<TableColumn<Metrics>, "value" | "hidden"> & { id: keyof Metrics };

const METRIC_COLUMNS: MetricColumn[] = [
  { id: "impressions_total", label: "Impressions", kind: "integer", total: "sum" },
  { id: "views_total", label: "Views", kind: "integer", total: "sum" },
  { id: "clicks_total", label: "Clicks", kind: "integer", total: "sum" },
  { id: "ctr", label: "CTR", kind: "percent", total: ratioOf("clicks_total", "impressions_total") },
  { id: "ad_revenue", label: "Spend", kind: "money", total: "sum" },
  { id: "conversions_total", label: "Conversions", kind: "integer", total: "sum" },
  { id: "conversion_rate", label: "Conversion rate", kind: "percent", total: ratioOf("conversions_total", "clicks_total") },
  { id: "sales_revenue", label: "Sales", kind: "money", total: "sum" },
  { id: "roas", label: "ROAS", kind: "number", total: ratioOf("sales_revenue", "ad_revenue") },
  { id: "units_sold", label: "Units sold", kind: "number", total: "sum" },
  { id: "ecpm", label: "eCPM", kind: "money", total: ratioOf("ad_revenue", "impressions_total", 1000) },
  { id: "avg_cpc", label: "Avg. CPC", kind: "money", total: ratioOf("ad_revenue", "clicks_total") },
  { id: "cpa", label: "CPA", kind: "money", total: ratioOf("ad_revenue", "conversions_total") },
  { id: "acos", label: "ACoS", kind: "percent", total: ratioOf("ad_revenue", "sales_revenue") },
];

/** The figure columns for rows carrying Metrics; those not in `shown` wait in the column chooser. */
export function metricColumns<Row extends Metrics>(shown: readonly (keyof Metrics)[]): TableColumn<Row>[] {
  return METRIC_COLUMNS.map((column) => ({ ...column, value: (row: Row) => row[column.id] as number | null, hidden: !shown.includes(column.id) }));
}
