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

type MetricField = (typeof METRIC_FIELDS)[number];

export const METRIC_COLUMNS: Record<MetricField, FieldColumn> = {
  impressions_total: { label: "Impressions", kind: "integer" },
  views_total: { label: "Views", kind: "integer" },
  clicks_total: { label: "Clicks", kind: "integer" },
  ctr: { label: "CTR", kind: "percent" },
  ad_revenue: { label: "Spend", kind: "money" },
  conversions_total: { label: "Conversions", kind: "integer" },
  conversion_rate: { label: "Conversion rate", kind: "percent" },
  sales_revenue: { label: "Sales revenue", kind: "money" },
  roas: { label: "ROAS", kind: "number" },
  duplicate_events: { label: "Duplicate events", kind: "integer" },
  bot_events: { label: "Bot events", kind: "integer" },
  invalid_events: { label: "Invalid events", kind: "integer" },
  unverified_conversions: { label: "Unverified conversions", kind: "integer" },
  unverified_sales_revenue: { label: "Unverified sales revenue", kind: "money" },
  uncredited_conversions: { label: "Uncredited conversions", kind: "integer" },
  uncredited_sales_revenue: { label: "Uncredited sales revenue", kind: "money" },
  conversions_click: { label: "Click conversions", kind: "integer" },
  conversions_view: { label: "View conversions", kind: "integer" },
  sales_revenue_click: { label: "Click sales revenue", kind: "money" },
  sales_revenue_view: { label: "View sales revenue", kind: "money" },
  units_sold: { label: "Units sold", kind: "number" },
  converted_clicks: { label: "Converted clicks", kind: "integer" },
  click_conversion_rate: { label: "Click conversion rate", kind: "percent" },
  halo_conversions: { label: "Halo conversions", kind: "integer" },
  halo_sales_revenue: { label: "Halo sales revenue", kind: "money" },
  ntb_conversions: { label: "New-to-brand conversions", kind: "integer" },
  ntb_sales_revenue: { label: "New-to-brand sales revenue", kind: "money" },
  ntb_rate: { label: "New-to-brand rate", kind: "percent" },
  ecpm: { label: "eCPM", kind: "money" },
  avg_cpc: { label: "Avg. CPC", kind: "money" },
  cpa: { label: "CPA", kind: "money" },
  acos: { label: "ACoS", kind: "percent" },
};

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
