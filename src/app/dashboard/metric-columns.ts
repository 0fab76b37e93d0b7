// The figure columns every dashboard table of report rows offers: every metric of the catalogue
// (store/metric-columns.ts), in its words for the reader, counts and money summed in the totals
// row, ratios recomputed from those sums.
import { type Audience, METRIC_CATALOGUE, type MetricField, metricFor } from "@/server/store/metric-columns";
import { METRIC_FIELDS, type Metrics } from "@/server/store/metrics";
import { type ColumnKind, ratioOf, type TableColumn } from "./table-columns";

/** The kind a table and its file give a format: the file's number format then has the screen's decimals. */
const KIND: Record<(typeof METRIC_CATALOGUE)[MetricField]["format"], ColumnKind> = {
  count: "integer",
  money: "money",
  percent: "percent",
  times: "number",
  units: "number",
};

/** Every metric as a column; those not in `shown` wait in the column chooser. */
export function metricColumns<Row extends Metrics>(shown: readonly (keyof Metrics)[], audience: Audience = "advertiser"): TableColumn<Row>[] {
  return METRIC_FIELDS.map((id) => {
    const entry = METRIC_CATALOGUE[id];
    const { label, format } = metricFor(id, audience);
    const [numerator, denominator, scale] = entry.ratio ?? [];
    return {
      id,
      label,
      kind: KIND[format],
      format,
      value: (row: Row) => row[id] as number | null,
      total: numerator && denominator ? ratioOf(numerator, denominator, scale) : "sum",
      hidden: !shown.includes(id),
    };
  });
}
