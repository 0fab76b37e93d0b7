import { describe, expect, it } from "vitest";
import { METRIC_FIELDS, type Metrics } from "@/server/store/metrics";
import { metricColumns } from "./metric-columns";
import { tableTotals } from "./table-columns";

describe("a table's metric columns", () => {
  it("offer every metric, showing only the table's usual ones until chosen", () => {
    const columns = metricColumns<Metrics>(["impressions_total", "roas"]);
    expect(columns.map((c) => c.id)).toEqual([...METRIC_FIELDS]);
    expect(columns.filter((c) => !c.hidden).map((c) => c.id)).toEqual(["impressions_total", "roas"]);
    expect(columns.find((c) => c.id === "roas")).toMatchObject({ label: "ROAS", kind: "number", format: "times" });
    expect(columns.find((c) => c.id === "units_sold")).toMatchObject({ kind: "number", format: "units" });
  });

  it("read in a publisher's words for a publisher", () => {
    const columns = metricColumns<Metrics>([], "publisher");
    expect(columns.find((c) => c.id === "ad_revenue")?.label).toBe("Ad revenue");
    expect(columns.find((c) => c.id === "acos")?.label).toBe("Advertisers' ACoS");
  });

  it("total a ratio from the sums of the metrics it is made of, never as a sum of ratios", () => {
    const row = (sales: number, spend: number, impressions: number) =>
      ({
        sales_revenue: sales,
        ad_revenue: spend,
        impressions_total: impressions,
        roas: sales / spend,
        ecpm: (spend * 1000) / impressions,
      }) as unknown as Metrics;
    const totals = tableTotals(metricColumns<Metrics>([]), [row(30, 10, 1000), row(10, 10, 3000)]);
    expect(totals.get("roas")).toBe(2);
    expect(totals.get("ecpm")).toBe(5);
    expect(totals.get("ad_revenue")).toBe(20);
  });
});
