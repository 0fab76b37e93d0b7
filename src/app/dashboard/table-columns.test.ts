import { describe, expect, it } from "vitest";
import { compareCells, ratioOf, type TableColumn, tableFileBody, tableTotals } from "./table-columns";

type Row = { name: string; impressions: number; clicks: number; spend: number };
const columns: TableColumn<Row>[] = [
  { id: "name", label: "Campaign", kind: "text", value: (r) => r.name },
  { id: "impressions", label: "Impressions", kind: "integer", value: (r) => r.impressions, total: "sum", hidden: true },
  { id: "clicks", label: "Clicks", kind: "integer", value: (r) => r.clicks, total: "sum" },
  { id: "ctr", label: "CTR", kind: "percent", value: (r) => (r.impressions ? r.clicks / r.impressions : 0), total: ratioOf("clicks", "impressions") },
  { id: "spend", label: "Spend", kind: "money", value: (r) => r.spend, total: "sum" },
];
const rows: Row[] = [
  { name: "b", impressions: 1000, clicks: 10, spend: 2.5 },
  { name: "a", impressions: 3000, clicks: 90, spend: 7.25 },
];

describe("a table's totals and file", () => {
  it("sums counts and money, and recomputes a ratio from the sums (not the mean of the rows' ratios)", () => {
    const totals = tableTotals(columns, rows);
    expect(totals.get("clicks")).toBe(100);
    expect(totals.get("spend")).toBe(9.75);
    expect(totals.get("ctr")).toBeCloseTo(100 / 4000, 12);
    expect(totals.get("name")).toBeNull();
    expect(tableTotals(columns, []).get("ctr")).toBeNull();
  });

  it("holds the rows in the order given and only the columns shown, raw, with the totals last", () => {
    const body = tableFileBody("csv", {
      name: "campaigns",
      sheet: "Campaigns",
      columns,
      shown: ["name", "ctr", "spend"],
      rows,
      currency: "EUR",
      withTotals: true,
    });
    expect(body.columns).toEqual([
      { label: "Campaign", kind: "text" },
      { label: "CTR", kind: "percent" },
      { label: "Spend", kind: "money", currency: "EUR" },
    ]);
    expect(body.rows).toEqual([
      ["b", 0.01, 2.5],
      ["a", 0.03, 7.25],
    ]);
    expect(body.totals).toEqual(["Total", 0.025, 9.75]);
    const single = tableFileBody("csv", { name: "one", columns, shown: ["name", "clicks"], rows: rows.slice(0, 1), currency: null, withTotals: false });
    expect(single.totals).toBeUndefined();
    expect(single.columns).toEqual([
      { label: "Campaign", kind: "text" },
      { label: "Clicks", kind: "integer" },
    ]);
  });

  it("orders numbers by value, text by letters, nulls first", () => {
    expect([10, 9, null, 100].sort(compareCells)).toEqual([null, 9, 10, 100]);
    expect(["b", "A", "a"].sort(compareCells)).toEqual(["a", "A", "b"]);
  });
});
