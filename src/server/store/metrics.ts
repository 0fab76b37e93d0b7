// The figures every report row carries (docs/interface-decisions.md §4), computed from the totals its query sums.
// No SQL here: the dashboard's pages import these types too.
import { fromMicros } from "@/server/core/money";

/** The sums a report query returns for a row (rollup-totals.sql.ts's TOTALS_COLUMNS). */
export interface TotalsRow {
  impressions: number;
  views: number;
  clicks: number;
  spend_micros: number;
  duplicate_events: number;
  bot_events: number;
  invalid_events: number;
  sales_revenue_micros: number;
  conversions: number;
  unverified_conversions: number;
  unverified_sales_revenue_micros: number;
  uncredited_conversions: number;
  uncredited_sales_revenue_micros: number;
}

export interface Metrics {
  impressions_total: number;
  views_total: number;
  clicks_total: number;
  ctr: number;
  ad_revenue: number;
  conversions_total: number;
  conversion_rate: number;
  sales_revenue: number;
  roas: number;
  /** Beacons filtered as repeats inside the de-duplication windows. */
  duplicate_events: number;
  /** Beacons filtered as known bots (by user agent). */
  bot_events: number;
  /** Beacons filtered for every other reason: session_mismatch, token_reuse, no_user_agent, click_velocity. */
  invalid_events: number;
  /** Orders with an item attributed here that came with no proof (no API key, no valid order token), credited or not. */
  unverified_conversions: number;
  /** The value of those orders' attributed items. */
  unverified_sales_revenue: number;
  /** Of the unverified orders, those left out of conversions_total (their publisher requires verified orders). */
  uncredited_conversions: number;
  /** The value of those orders' attributed items, left out of sales_revenue and ROAS. */
  uncredited_sales_revenue: number;
  /** Cost per thousand counted impressions: ad_revenue × 1000 / impressions_total; null without impressions. */
  ecpm: number | null;
  /** Average cost per counted click: ad_revenue / clicks_total; null without clicks. */
  avg_cpc: number | null;
  /** Cost per conversion: ad_revenue / conversions_total; null without conversions. */
  cpa: number | null;
  /** Advertising cost of sales: ad_revenue / sales_revenue (the inverse of ROAS); null without sales. */
  acos: number | null;
}

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? 0 : numerator / denominator);

/**
 * Money per unit, in the currency's units to the micro: null, not 0 or infinity, where nothing was
 * bought to divide by (docs/reports.md, "Cost metrics").
 */
const costPer = (micros: number, units: number) => (units === 0 ? null : fromMicros(Math.round(micros / units)));

/**
 * The metrics of docs/interface-decisions.md §4 from a row's totals, where a ratio over zero is
 * 0; then the cost metrics, where it is null.
 */
export function metricsOf(r: TotalsRow): Metrics {
  const adRevenue = fromMicros(r.spend_micros);
  const salesRevenue = fromMicros(r.sales_revenue_micros);
  return {
    impressions_total: r.impressions,
    views_total: r.views,
    clicks_total: r.clicks,
    ctr: ratio(r.clicks, r.impressions),
    ad_revenue: adRevenue,
    conversions_total: r.conversions,
    conversion_rate: ratio(r.conversions, r.clicks),
    sales_revenue: salesRevenue,
    roas: ratio(salesRevenue, adRevenue),
    duplicate_events: r.duplicate_events,
    bot_events: r.bot_events,
    invalid_events: r.invalid_events,
    unverified_conversions: r.unverified_conversions,
    unverified_sales_revenue: fromMicros(r.unverified_sales_revenue_micros),
    uncredited_conversions: r.uncredited_conversions,
    uncredited_sales_revenue: fromMicros(r.uncredited_sales_revenue_micros),
    ecpm: costPer(r.spend_micros * 1000, r.impressions),
    avg_cpc: costPer(r.spend_micros, r.clicks),
    cpa: costPer(r.spend_micros, r.conversions),
    acos: r.sales_revenue_micros === 0 ? null : r.spend_micros / r.sales_revenue_micros,
  };
}
