// How a report field reads in a file a person opens (docs/reports.md, "XLSX columns"): its header
// in words and its kind (counts, amounts, money, percentages, dates). The JSON keeps the field
// names; only the XLSX headers and formats come from here. And the totals row of such a file: counts
// and money summed, every ratio computed again from the sums, never a sum of ratios.

import { toMicroUnits } from "@/server/core/money";
import type { XlsxKind } from "@/server/formats/xlsx-styles";
import { addTotals, emptyTotals, METRIC_FIELDS, type Metrics, metricsOf, type TotalsRow } from "./metrics";

export interface FieldColumn {
  label: string;
  kind: XlsxKind;
}

export type MetricField = (typeof METRIC_FIELDS)[number];

/** How a figure is written on a screen (dashboard/figures.tsx): each has one way, and its file kind below. */
export type FigureFormat = "count" | "money" | "percent" | "times" | "units";
/** Which way of a change is better for the one who reads it: a cost going up is worse; spend is neither. */
export type GoodDirection = "up" | "down" | "neutral";

export interface MetricEntry {
  label: string;
  format: FigureFormat;
  good: GoodDirection;
  /**
   * A ratio of two other metrics (numerator, denominator, scale): its total is computed again from
   * their sums, and it does not grow with the number of days (a comparison reads it over any days).
   * Absent, the metric is a sum.
   */
  ratio?: [numerator: MetricField, denominator: MetricField, scale?: number];
  /**
   * What a publisher or a network reads instead: what advertisers spend is its revenue (more is
   * better), and the advertisers' own yardsticks say whose they are.
   */
  publisher?: { label: string; good?: GoodDirection };
}

/** The file kind of each screen format: the XLSX number format then shows the screen's decimals (xlsx-styles.ts). */
const FILE_KIND: Record<FigureFormat, XlsxKind> = { count: "integer", money: "money", percent: "percent", times: "number", units: "number" };

/**
 * Every metric once: its words, how it is written, which way is good, how its total is made. The
 * KPI cards, the dashboard tables' columns and the files' headers all read this list.
 */
export const METRIC_CATALOGUE: Record<MetricField, MetricEntry> = {
  impressions_total: { label: "Impressions", format: "count", good: "up" },
  views_total: { label: "Views", format: "count", good: "up" },
  clicks_total: { label: "Clicks", format: "count", good: "up" },
  ctr: { label: "CTR", format: "percent", good: "up", ratio: ["clicks_total", "impressions_total"] },
  ad_revenue: { label: "Spend", format: "money", good: "neutral", publisher: { label: "Ad revenue", good: "up" } },
  conversions_total: { label: "Conversions", format: "count", good: "up" },
  conversion_rate: { label: "Conversion rate", format: "percent", good: "up", ratio: ["conversions_total", "clicks_total"] },
  sales_revenue: { label: "Sales revenue", format: "money", good: "up" },
  roas: { label: "ROAS", format: "times", good: "up", ratio: ["sales_revenue", "ad_revenue"], publisher: { label: "Advertisers' ROAS" } },
  duplicate_events: { label: "Duplicate events", format: "count", good: "down" },
  bot_events: { label: "Bot events", format: "count", good: "down" },
  invalid_events: { label: "Invalid events", format: "count", good: "down" },
  // Orders without proof are kept apart, credited or not: more of them is neither better nor worse by itself.
  unverified_conversions: { label: "Unverified conversions", format: "count", good: "neutral" },
  unverified_sales_revenue: { label: "Unverified sales revenue", format: "money", good: "neutral" },
  uncredited_conversions: { label: "Uncredited conversions", format: "count", good: "neutral" },
  uncredited_sales_revenue: { label: "Uncredited sales revenue", format: "money", good: "neutral" },
  conversions_click: { label: "Click conversions", format: "count", good: "up" },
  conversions_view: { label: "View conversions", format: "count", good: "up" },
  sales_revenue_click: { label: "Click sales revenue", format: "money", good: "up" },
  sales_revenue_view: { label: "View sales revenue", format: "money", good: "up" },
  units_sold: { label: "Units sold", format: "units", good: "up" },
  converted_clicks: { label: "Converted clicks", format: "count", good: "up" },
  click_conversion_rate: { label: "Click conversion rate", format: "percent", good: "up", ratio: ["converted_clicks", "clicks_total"] },
  halo_conversions: { label: "Halo conversions", format: "count", good: "up" },
  halo_sales_revenue: { label: "Halo sales revenue", format: "money", good: "up" },
  ntb_conversions: { label: "New-to-brand conversions", format: "count", good: "up" },
  ntb_sales_revenue: { label: "New-to-brand sales revenue", format: "money", good: "up" },
  ntb_rate: { label: "New-to-brand rate", format: "percent", good: "up", ratio: ["ntb_conversions", "conversions_total"] },
  // Costs: lower is better for the advertiser who pays; a publisher is paid them, so its eCPM and CPC read the other way.
  ecpm: { label: "eCPM", format: "money", good: "down", ratio: ["ad_revenue", "impressions_total", 1000], publisher: { label: "eCPM", good: "up" } },
  avg_cpc: { label: "Avg. CPC", format: "money", good: "down", ratio: ["ad_revenue", "clicks_total"], publisher: { label: "Avg. CPC", good: "up" } },
  cpa: { label: "CPA", format: "money", good: "down", ratio: ["ad_revenue", "conversions_total"], publisher: { label: "Advertisers' CPA" } },
  acos: { label: "ACoS", format: "percent", good: "down", ratio: ["ad_revenue", "sales_revenue"], publisher: { label: "Advertisers' ACoS" } },
};

/** Who reads the figures: an advertiser's words, or a publisher's (a network's too). */
export type Audience = "advertiser" | "publisher";

/** A metric's words and good direction for `audience`. */
export function metricFor(field: MetricField, audience: Audience): { label: string; format: FigureFormat; good: GoodDirection } {
  const entry = METRIC_CATALOGUE[field];
  const own = audience === "publisher" ? entry.publisher : undefined;
  return { label: own?.label ?? entry.label, format: entry.format, good: own?.good ?? entry.good };
}

/** The report files' columns of the metrics: the catalogue's advertiser words and the file kind of its format. */
export const METRIC_COLUMNS = Object.fromEntries(
  Object.entries(METRIC_CATALOGUE).map(([field, entry]) => [field, { label: entry.label, kind: FILE_KIND[entry.format] }]),
) as Record<MetricField, FieldColumn>;

/** The reports' other fields: who and when a row is about. A report may name its `name` field better (report-definitions.ts). */
export const IDENTITY_COLUMNS = {
  day: { label: "Day", kind: "date" },
  level: { label: "Level", kind: "text" },
  name: { label: "Name", kind: "text" },
  advertiser: { label: "Advertiser", kind: "text" },
  advertiser_id: { label: "Advertiser ID", kind: "text" },
  seller_id: { label: "Seller ID", kind: "text" },
  wallet_balance: { label: "Wallet balance", kind: "money" },
  daily_budget: { label: "Daily budget", kind: "money" },
  currency: { label: "Currency", kind: "text" },
  publisher: { label: "Publisher", kind: "text" },
  publisher_id: { label: "Publisher ID", kind: "text" },
  network_id: { label: "Network ID", kind: "text" },
  sites: { label: "Sites", kind: "text" },
  campaign: { label: "Campaign", kind: "text" },
  campaign_id: { label: "Campaign ID", kind: "text" },
  campaign_type: { label: "Campaign type", kind: "text" },
  campaign_status: { label: "Campaign status", kind: "text" },
  start_date: { label: "Start date", kind: "date" },
  end_date: { label: "End date", kind: "date" },
  ad_id: { label: "Ad ID", kind: "text" },
  ad_type: { label: "Ad type", kind: "text" },
  ad_size: { label: "Ad size", kind: "text" },
  ad_status: { label: "Ad status", kind: "text" },
  ad_media_url: { label: "Media URL", kind: "text" },
  cpm: { label: "CPM bid", kind: "money" },
  cpc: { label: "CPC bid", kind: "money" },
  product_sku: { label: "Product SKUs", kind: "text" },
} as const satisfies Record<string, FieldColumn>;

export type IdentityField = keyof typeof IDENTITY_COLUMNS;

/** Every report field's column: a metric's, else an identity field's. */
export const FIELD_COLUMNS: Record<MetricField | IdentityField, FieldColumn> = { ...IDENTITY_COLUMNS, ...METRIC_COLUMNS };

const MONEY_FIELDS = METRIC_FIELDS.filter((field) => METRIC_COLUMNS[field].kind === "money");

/** A row's figures back as the sums they were made from; money to the micro-unit, so adding stays exact. */
function sumsOf(m: Metrics): TotalsRow {
  return {
    impressions: m.impressions_total,
    views: m.views_total,
    clicks: m.clicks_total,
    spend_micros: toMicroUnits(m.ad_revenue),
    duplicate_events: m.duplicate_events,
    bot_events: m.bot_events,
    invalid_events: m.invalid_events,
    sales_revenue_micros: toMicroUnits(m.sales_revenue),
    conversions: m.conversions_total,
    unverified_conversions: m.unverified_conversions,
    unverified_sales_revenue_micros: toMicroUnits(m.unverified_sales_revenue),
    uncredited_conversions: m.uncredited_conversions,
    uncredited_sales_revenue_micros: toMicroUnits(m.uncredited_sales_revenue),
    conversions_click: m.conversions_click,
    sales_revenue_click_micros: toMicroUnits(m.sales_revenue_click),
    units_sold_micros: toMicroUnits(m.units_sold),
    converted_clicks: m.converted_clicks,
    halo_conversions: m.halo_conversions,
    halo_sales_revenue_micros: toMicroUnits(m.halo_sales_revenue),
    ntb_conversions: m.ntb_conversions,
    ntb_sales_revenue_micros: toMicroUnits(m.ntb_sales_revenue),
  };
}

export interface MetricTotalsOptions {
  /** Rows that break another row down (a detailed report's sub_publisher rows): left out, or they would count twice. */
  skip?: (row: Record<string, unknown>) => boolean;
  /** A field naming each row's currency: money is left blank in the totals of rows in several currencies. */
  currencyKey?: string;
}

/**
 * The totals row of a report's rows, added up batch by batch as they stream past (add), ready
 * once the last is in (row): the metrics of the summed rows, and `label` in the first column.
 * Conversions are the rows' sum: an order credited to two campaigns counts in each.
 */
export function metricTotals(options: MetricTotalsOptions = {}) {
  const sums = emptyTotals();
  const currencies = new Set<unknown>();
  let rows = 0;
  return {
    add(batch: readonly object[]) {
      for (const row of batch as readonly Record<string, unknown>[]) {
        if (options.skip?.(row)) continue;
        rows += 1;
        if (options.currencyKey) currencies.add(row[options.currencyKey]);
        addTotals(sums, sumsOf(row as unknown as Metrics));
      }
    },
    /** The totals by field, `label` under `labelKey`; null without rows. */
    row(labelKey: string, label = "Total"): Record<string, unknown> | null {
      if (rows === 0) return null;
      const totals: Record<string, unknown> = { ...metricsOf(sums), [labelKey]: label };
      if (currencies.size > 1) for (const field of MONEY_FIELDS) totals[field] = null;
      else if (options.currencyKey) totals[options.currencyKey] = currencies.values().next().value;
      return totals;
    },
  };
}
