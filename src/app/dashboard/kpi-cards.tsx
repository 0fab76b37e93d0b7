"use client";
// The figure cards of the overview and the campaign page: each figure of the range, its change
// against the period just before, and which period that is.
import type { Metrics } from "@/server/store/metrics";
import { comparedWith, describeChange, relativeChange } from "./comparison";
import { formatMoney, money, percent, whole } from "./figures";
import type { Range } from "./url-views";

const units = new Intl.NumberFormat("en", { maximumFractionDigits: 3 });
const ARROWS = { up: "▲", down: "▼", flat: "=" } as const;

export type PreviousPeriod = Range & { total: Metrics };

type Kind = "count" | "money" | "ratio" | "times" | "units";
/** The cards in order, with the footnotes that say what each figure holds. */
const CARDS: [label: string, field: keyof Metrics, kind: Kind][] = [
  ["Impressions", "impressions_total", "count"],
  ["Views", "views_total", "count"],
  ["Clicks", "clicks_total", "count"],
  ["CTR", "ctr", "ratio"],
  ["Spend", "ad_revenue", "money"],
  ["Conversions", "conversions_total", "count"],
  ["Sales revenue", "sales_revenue", "money"],
  ["ROAS", "roas", "times"],
  // Each order goes to the touch that won it: a click, else a view or an impression (docs/conversions.md).
  ["Click-through conversions", "conversions_click", "count"],
  ["View-through conversions", "conversions_view", "count"],
  ["Click-through sales", "sales_revenue_click", "money"],
  ["View-through sales", "sales_revenue_view", "money"],
  ["Units sold", "units_sold", "units"],
  ["Click conversion rate", "click_conversion_rate", "ratio"],
  // Another SKU of the brand, bought after its ad: apart from conversions and sales (docs/reports.md, "Halo sales").
  ["Halo conversions", "halo_conversions", "count"],
  ["Halo sales", "halo_sales_revenue", "money"],
  // Orders of shoppers who had not bought the brand at the publisher in the look-back (docs/reports.md, "New-to-brand").
  ["New-to-brand conversions", "ntb_conversions", "count"],
  ["New-to-brand sales", "ntb_sales_revenue", "money"],
  ["New-to-brand rate", "ntb_rate", "ratio"],
  // Cost metrics: "—" where nothing was bought to divide by (docs/reports.md, "Cost metrics").
  ["eCPM", "ecpm", "money"],
  ["Avg. CPC", "avg_cpc", "money"],
  ["CPA", "cpa", "money"],
  ["ACoS", "acos", "ratio"],
  // Orders that came with no proof, counted apart from the credited ones (docs/conversions.md).
  ["Unverified conversions", "unverified_conversions", "count"],
  ["Unverified sales", "unverified_sales_revenue", "money"],
];

function shown(value: number | null, kind: Kind, currency: string | null): string {
  if (value === null) return "—";
  if (kind === "money") return formatMoney(value, currency);
  if (kind === "ratio") return percent.format(value);
  if (kind === "times") return `${money.format(value)}×`;
  if (kind === "units") return units.format(value);
  return whole.format(value);
}

/** `currency`: the account's code, or null when the figures mix currencies (every account at once). */
export function KpiCards({ total, previous, currency }: { total: Metrics; previous?: PreviousPeriod | null; currency: string | null }) {
  return (
    <>
      <section className="kpis" aria-label="Totals">
        {CARDS.map(([label, field, kind]) => {
          const value = total[field] as number | null;
          const change = previous ? describeChange(relativeChange(value, previous.total[field] as number | null)) : null;
          return (
            <div className="kpi" key={label} data-kpi={label}>
              <span className="kpi-label">{label}</span>
              <span className="kpi-value">{shown(value, kind, currency)}</span>
              {change && previous ? (
                <span className={`kpi-change ${change.direction ?? "none"}`} data-change={change.text}>
                  <span aria-hidden="true">
                    {change.direction ? `${ARROWS[change.direction]} ` : ""}
                    {change.text}
                  </span>
                  <span className="visually-hidden">{change.words}</span> <span className="kpi-vs">{comparedWith(previous)}</span>
                </span>
              ) : null}
            </div>
          );
        })}
      </section>
      {total.uncredited_conversions > 0 ? (
        <p className="muted" data-testid="uncredited">
          {total.uncredited_conversions === 1 ? "1 unverified conversion" : `${whole.format(total.uncredited_conversions)} unverified conversions`} (
          {formatMoney(total.uncredited_sales_revenue, currency)} in sales) {total.uncredited_conversions === 1 ? "is" : "are"} not credited: they came without
          proof, and the publisher credits only proven orders. Conversions, sales revenue and ROAS leave them out.
        </p>
      ) : null}
    </>
  );
}
