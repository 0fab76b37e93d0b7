// The figures every report row carries (docs/interface-decisions.md §4), computed from the totals its query sums.
// No SQL here: the dashboard's pages import these types too.
import { z } from "zod";
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
  /** Credited orders of the row with a line credited to a click (the rest are view-through). */
  conversions_click: number;
  /** The value of the credited lines credited to a click. */
  sales_revenue_click_micros: number;
  /** Units of the credited lines, in millionths (a quantity may be fractional: 0.5 kg). */
  units_sold_micros: number;
  /** Counted clicks of the row (by the click's day) that earned credit for at least one order line. */
  converted_clicks: number;
  /** Credited orders with a halo line here (another SKU of the advertiser, by the publisher's catalogue), and those lines' value. */
  halo_conversions: number;
  halo_sales_revenue_micros: number;
  /** Credited orders with a new-to-brand line here, and those lines' value. */
  ntb_conversions: number;
  ntb_sales_revenue_micros: number;
}

/** Sums of nothing: the start of a totals row that rows are added into. */
export const emptyTotals = (): TotalsRow => ({
  impressions: 0,
  views: 0,
  clicks: 0,
  spend_micros: 0,
  duplicate_events: 0,
  bot_events: 0,
  invalid_events: 0,
  sales_revenue_micros: 0,
  conversions: 0,
  unverified_conversions: 0,
  unverified_sales_revenue_micros: 0,
  uncredited_conversions: 0,
  uncredited_sales_revenue_micros: 0,
  conversions_click: 0,
  sales_revenue_click_micros: 0,
  units_sold_micros: 0,
  converted_clicks: 0,
  halo_conversions: 0,
  halo_sales_revenue_micros: 0,
  ntb_conversions: 0,
  ntb_sales_revenue_micros: 0,
});

/** Adds one row's sums into `into`, field by field. */
export function addTotals(into: TotalsRow, add: TotalsRow): void {
  for (const key of Object.keys(into) as (keyof TotalsRow)[]) into[key] += add[key];
}

const count = (description: string) => z.int().describe(description);
const amount = (description: string) => z.number().describe(description);
const orNull = (description: string) => z.number().nullable().describe(description);

/**
 * The figures of a report row: the schema is the source of the type, of the API document
 * (src/server/http/openapi/) and of the contract tests, so the three cannot drift apart.
 * Money is in the advertiser's currency units.
 */
export const ZMetrics = z.object({
  impressions_total: count("Counted impressions."),
  views_total: count("Counted views (the ad was seen)."),
  clicks_total: count("Counted clicks."),
  ctr: amount("clicks_total / impressions_total; 0 without impressions."),
  ad_revenue: amount("What the counted events cost the advertiser (the publisher's ad revenue)."),
  conversions_total: count("Credited orders: orders with a line credited here."),
  conversion_rate: amount("conversions_total / clicks_total; 0 without clicks."),
  sales_revenue: amount("The value of the credited lines."),
  roas: amount("Return on ad spend: sales_revenue / ad_revenue; 0 without spend."),
  duplicate_events: count("Beacons filtered as repeats inside the de-duplication windows."),
  bot_events: count("Beacons filtered as known bots (by user agent)."),
  invalid_events: count("Beacons filtered for every other reason: session_mismatch, token_reuse, no_user_agent, click_velocity."),
  unverified_conversions: count("Orders with an item attributed here that came with no proof (no API key, no valid order token), credited or not."),
  unverified_sales_revenue: amount("The value of those orders' attributed items."),
  uncredited_conversions: count("Of the unverified orders, those left out of conversions_total: their publisher credits only proven orders (the default)."),
  uncredited_sales_revenue: amount("The value of those orders' attributed items, left out of sales_revenue and ROAS."),
  conversions_click: count("Of conversions_total, the orders with a line credited to a click here."),
  conversions_view: count("conversions_total − conversions_click: orders credited here to views and impressions only."),
  sales_revenue_click: amount("Of sales_revenue, the value of lines credited to a click."),
  sales_revenue_view: amount("sales_revenue − sales_revenue_click."),
  units_sold: amount("Units bought in the credited lines (a quantity may be fractional: 0.5 kg)."),
  converted_clicks: count("Counted clicks that earned credit for at least one order line."),
  click_conversion_rate: orNull("converted_clicks / clicks_total: the share of clicks that led to a sale, never above 1; null without clicks."),
  halo_conversions: count(
    "Credited orders with a line of another SKU of the advertiser credited here as halo (no campaign had a touch for that SKU itself): apart from conversions_total.",
  ),
  halo_sales_revenue: amount("The value of those halo lines: apart from sales_revenue and ROAS."),
  ntb_conversions: count(
    "Of conversions_total, the orders with a line new to the brand: its shopper had bought none of the advertiser's SKUs at the publisher in the look-back before (365 days unless set).",
  ),
  ntb_sales_revenue: amount("The value of those new-to-brand lines (part of sales_revenue)."),
  ntb_rate: orNull("ntb_conversions / conversions_total; null without conversions."),
  ecpm: orNull("Cost per thousand counted impressions: ad_revenue × 1000 / impressions_total; null without impressions."),
  avg_cpc: orNull("Average cost per counted click: ad_revenue / clicks_total; null without clicks."),
  cpa: orNull("Cost per conversion: ad_revenue / conversions_total; null without conversions."),
  acos: orNull("Advertising cost of sales: ad_revenue / sales_revenue (the inverse of ROAS); null without sales."),
});

export type Metrics = z.infer<typeof ZMetrics>;

/** Every metric of a report row, in the order reports and files give them: the interface's first. */
export const METRIC_FIELDS = [
  "impressions_total",
  "views_total",
  "clicks_total",
  "ctr",
  "ad_revenue",
  "conversions_total",
  "conversion_rate",
  "sales_revenue",
  "roas",
  "duplicate_events",
  "bot_events",
  "invalid_events",
  "unverified_conversions",
  "unverified_sales_revenue",
  "uncredited_conversions",
  "uncredited_sales_revenue",
  "conversions_click",
  "conversions_view",
  "sales_revenue_click",
  "sales_revenue_view",
  "units_sold",
  "converted_clicks",
  "click_conversion_rate",
  "halo_conversions",
  "halo_sales_revenue",
  "ntb_conversions",
  "ntb_sales_revenue",
  "ntb_rate",
  "ecpm",
  "avg_cpc",
  "cpa",
  "acos",
] as const satisfies readonly (keyof Metrics)[];

// The other way round: a metric added to the schema but not to METRIC_FIELDS fails to compile.
const everyMetricListed: Exclude<keyof Metrics, (typeof METRIC_FIELDS)[number]> extends never ? true : never = true;
void everyMetricListed;

/**
 * A derived ratio to 10 significant digits, where the JSON figure is made: a quotient in floating
 * point carries a tail no figure means (83.49999999999999 for 83.5), and both stores compute
 * their ratios here, so they agree to the digit. Stored sums are never rounded.
 */
export const significant = (value: number) => Number(value.toPrecision(10));

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? 0 : significant(numerator / denominator));
const ratioOrNull = (numerator: number, denominator: number) => (denominator === 0 ? null : significant(numerator / denominator));

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
    roas: ratio(r.sales_revenue_micros, r.spend_micros),
    duplicate_events: r.duplicate_events,
    bot_events: r.bot_events,
    invalid_events: r.invalid_events,
    unverified_conversions: r.unverified_conversions,
    unverified_sales_revenue: fromMicros(r.unverified_sales_revenue_micros),
    uncredited_conversions: r.uncredited_conversions,
    uncredited_sales_revenue: fromMicros(r.uncredited_sales_revenue_micros),
    conversions_click: r.conversions_click,
    conversions_view: r.conversions - r.conversions_click,
    sales_revenue_click: fromMicros(r.sales_revenue_click_micros),
    sales_revenue_view: fromMicros(r.sales_revenue_micros - r.sales_revenue_click_micros),
    units_sold: r.units_sold_micros / 1_000_000,
    converted_clicks: r.converted_clicks,
    click_conversion_rate: ratioOrNull(r.converted_clicks, r.clicks),
    halo_conversions: r.halo_conversions,
    halo_sales_revenue: fromMicros(r.halo_sales_revenue_micros),
    ntb_conversions: r.ntb_conversions,
    ntb_sales_revenue: fromMicros(r.ntb_sales_revenue_micros),
    ntb_rate: ratioOrNull(r.ntb_conversions, r.conversions),
    ecpm: costPer(r.spend_micros * 1000, r.impressions),
    avg_cpc: costPer(r.spend_micros, r.clicks),
    cpa: costPer(r.spend_micros, r.conversions),
    acos: ratioOrNull(r.spend_micros, r.sales_revenue_micros),
  };
}
