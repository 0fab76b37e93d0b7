import { describe, expect, it } from "vitest";
import { FIELD_COLUMNS, METRIC_CATALOGUE, METRIC_COLUMNS, metricFor, metricTotals } from "./metric-columns";
import { emptyTotals, METRIC_FIELDS, metricsOf, type TotalsRow } from "./metrics";

const sums = (over: Partial<TotalsRow>): TotalsRow => ({ ...emptyTotals(), ...over });

describe("metricsOf", () => {
  it("rounds derived ratios to 10 significant digits, so a ratio of whole amounts reads as it should", () => {
    // 0.70 of sales over 0.10 of spend, divided as floats, gives 6.999999999999999.
    expect(0.7 / 0.1).not.toBe(7);
    expect(metricsOf(sums({ sales_revenue_micros: 700_000, spend_micros: 100_000 })).roas).toBe(7);
    const m = metricsOf(sums({ sales_revenue_micros: 1_670_000_000, spend_micros: 20_000_000, impressions: 3, clicks: 1, conversions: 3, ntb_conversions: 1 }));
    expect(m.roas).toBe(83.5);
    expect(m.ctr).toBe(0.3333333333);
    expect(m.ntb_rate).toBe(0.3333333333);
    expect(m.acos).toBe(0.0119760479);
    expect(m.sales_revenue).toBe(1670);
  });
});

describe("the XLSX columns", () => {
  it("name every metric in words with a kind", () => {
    for (const field of METRIC_FIELDS) expect(METRIC_COLUMNS[field].label).toMatch(/^[A-Za-z][A-Za-z .-]+$/);
    expect(FIELD_COLUMNS.ctr).toEqual({ label: "CTR", kind: "percent" });
    expect(FIELD_COLUMNS.ad_revenue).toEqual({ label: "Spend", kind: "money" });
    expect(FIELD_COLUMNS.day).toEqual({ label: "Day", kind: "date" });
  });
});

describe("the metric catalogue", () => {
  it("gives every metric a good direction, a format and, for a ratio, two metrics it is made of", () => {
    for (const field of METRIC_FIELDS) {
      const entry = METRIC_CATALOGUE[field];
      expect(["up", "down", "neutral"]).toContain(entry.good);
      expect(["count", "money", "percent", "times", "units"]).toContain(entry.format);
      for (const part of entry.ratio?.slice(0, 2) ?? []) expect(METRIC_FIELDS).toContain(part);
    }
  });

  it("reads a cost going up as worse, sales, ROAS and conversions going up as better, spend as neither", () => {
    for (const cost of ["cpa", "acos", "ecpm", "avg_cpc"] as const) expect(METRIC_CATALOGUE[cost].good).toBe("down");
    for (const gain of ["sales_revenue", "roas", "conversions_total", "conversions_click", "ntb_conversions"] as const)
      expect(METRIC_CATALOGUE[gain].good).toBe("up");
    expect(METRIC_CATALOGUE.ad_revenue.good).toBe("neutral");
    expect(METRIC_CATALOGUE.invalid_events.good).toBe("down");
  });

  it("gives a publisher its own words: spend is its revenue, the advertisers' yardsticks say whose they are", () => {
    expect(metricFor("ad_revenue", "publisher")).toEqual({ label: "Ad revenue", format: "money", good: "up" });
    expect(metricFor("roas", "publisher")).toMatchObject({ label: "Advertisers' ROAS", good: "up" });
    expect(metricFor("acos", "publisher")).toMatchObject({ label: "Advertisers' ACoS", good: "down" });
    expect(metricFor("ecpm", "publisher").good).toBe("up");
    expect(metricFor("ad_revenue", "advertiser")).toEqual({ label: "Spend", format: "money", good: "neutral" });
  });

  it("writes a file's column in the kind of the screen's format, so both show the same decimals", () => {
    expect(METRIC_COLUMNS.roas.kind).toBe("number");
    expect(METRIC_COLUMNS.acos.kind).toBe("percent");
    expect(METRIC_COLUMNS.cpa.kind).toBe("money");
    expect(METRIC_COLUMNS.clicks_total.kind).toBe("integer");
  });
});

describe("metricTotals", () => {
  const row = (over: Partial<TotalsRow>, extra: Record<string, unknown> = {}) => ({ ...metricsOf(sums(over)), ...extra });

  it("sums counts and money and computes the ratios again from the sums, never summing ratios", () => {
    const totals = metricTotals();
    totals.add([row({ impressions: 100, clicks: 1, spend_micros: 1_100_000, sales_revenue_micros: 10_000_000 })]);
    totals.add([row({ impressions: 100, clicks: 3, spend_micros: 2_200_000, sales_revenue_micros: 0 }), row({ impressions: 0 })]);
    const total = totals.row("name")!;
    expect(total).toMatchObject({ name: "Total", impressions_total: 200, clicks_total: 4, ad_revenue: 3.3, sales_revenue: 10, ctr: 0.02, roas: 3.03030303 });
    // The rows' ctr were 0.01, 0.03 and 0: their sum would be 0.04.
    expect(total.avg_cpc).toBe(0.825);
  });

  it("leaves out rows that break another down, and money across currencies", () => {
    const detailed = metricTotals({ skip: (r) => r.level === "sub_publisher" });
    detailed.add([row({ impressions: 10 }, { level: "campaign" }), row({ impressions: 4 }, { level: "sub_publisher" })]);
    expect(detailed.row("day")).toMatchObject({ day: "Total", impressions_total: 10 });

    const mixed = metricTotals({ currencyKey: "currency" });
    mixed.add([row({ impressions: 1, spend_micros: 1_000_000 }, { currency: "USD" }), row({ impressions: 2, spend_micros: 1_000_000 }, { currency: "EUR" })]);
    expect(mixed.row("advertiser")).toMatchObject({ impressions_total: 3, ad_revenue: null, sales_revenue: null, ctr: 0 });
    const one = metricTotals({ currencyKey: "currency" });
    one.add([row({ spend_micros: 1_500_000 }, { currency: "EUR" })]);
    expect(one.row("advertiser")).toMatchObject({ ad_revenue: 1.5, currency: "EUR" });
    expect(metricTotals().row("x")).toBeNull();
  });
});
