"use client";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { daysFromToday, utcDay } from "@/server/core/days";
// What the overview and the campaign page share: a date range picker, KPI cards and the daily
// charts (recharts).
import type { Metrics } from "@/server/store/metrics";

export type Range = { startDate: string; endDate: string };
export const lastDays = (days: number): Range => ({ startDate: daysFromToday(-(days - 1)), endDate: utcDay() });

export const whole = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
export const money = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const units = new Intl.NumberFormat("en", { maximumFractionDigits: 3 });
export const percent = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 2 });
/** A moment to the minute, in UTC: "2026-11-27 15:04". */
export const utcMinute = (moment: Date) => moment.toISOString().slice(0, 16).replace("T", " ");
/** When a credential was last used, created or revoked: a UTC minute, or "never". */
export const whenUtc = (moment: Date | null) => (moment ? `${utcMinute(moment)} UTC` : "never");

export function RangePicker({ range, onChange }: { range: Range; onChange: (range: Range) => void }) {
  return (
    <>
      <fieldset className="presets">
        <legend className="visually-hidden">Range</legend>
        {[7, 30, 90].map((days) => {
          const preset = lastDays(days);
          return (
            <button
              key={days}
              type="button"
              className="chip"
              aria-pressed={range.startDate === preset.startDate && range.endDate === preset.endDate}
              onClick={() => onChange(preset)}
            >
              Last {days} days
            </button>
          );
        })}
      </fieldset>
      <label>
        From
        <input type="date" value={range.startDate} max={range.endDate} onChange={(e) => e.target.value && onChange({ ...range, startDate: e.target.value })} />
      </label>
      <label>
        To
        <input type="date" value={range.endDate} min={range.startDate} onChange={(e) => e.target.value && onChange({ ...range, endDate: e.target.value })} />
      </label>
    </>
  );
}

export function KpiCards({ total }: { total: Metrics }) {
  return (
    <>
      <section className="kpis" aria-label="Totals">
        {[
          ["Impressions", whole.format(total.impressions_total)],
          ["Views", whole.format(total.views_total)],
          ["Clicks", whole.format(total.clicks_total)],
          ["CTR", percent.format(total.ctr)],
          ["Spend", money.format(total.ad_revenue)],
          ["Conversions", whole.format(total.conversions_total)],
          ["Sales revenue", money.format(total.sales_revenue)],
          ["ROAS", `${money.format(total.roas)}×`],
          // Each order goes to the touch that won it: a click, else a view or an impression (docs/conversions.md).
          ["Click-through conversions", whole.format(total.conversions_click)],
          ["View-through conversions", whole.format(total.conversions_view)],
          ["Click-through sales", money.format(total.sales_revenue_click)],
          ["View-through sales", money.format(total.sales_revenue_view)],
          ["Units sold", units.format(total.units_sold)],
          ["Click conversion rate", total.click_conversion_rate === null ? "—" : percent.format(total.click_conversion_rate)],
          // Another SKU of the brand, bought after its ad: apart from conversions and sales (docs/reports.md, "Halo sales").
          ["Halo conversions", whole.format(total.halo_conversions)],
          ["Halo sales", money.format(total.halo_sales_revenue)],
          // Orders of shoppers who had not bought the brand at the publisher in the look-back (docs/reports.md, "New-to-brand").
          ["New-to-brand conversions", whole.format(total.ntb_conversions)],
          ["New-to-brand sales", money.format(total.ntb_sales_revenue)],
          ["New-to-brand rate", total.ntb_rate === null ? "—" : percent.format(total.ntb_rate)],
          // Cost metrics: "—" where nothing was bought to divide by (docs/reports.md, "Cost metrics").
          ["eCPM", total.ecpm === null ? "—" : money.format(total.ecpm)],
          ["Avg. CPC", total.avg_cpc === null ? "—" : money.format(total.avg_cpc)],
          ["CPA", total.cpa === null ? "—" : money.format(total.cpa)],
          ["ACoS", total.acos === null ? "—" : percent.format(total.acos)],
          // Orders that came with no proof, counted apart from the credited ones (docs/conversions.md).
          ["Unverified conversions", whole.format(total.unverified_conversions)],
          ["Unverified sales", money.format(total.unverified_sales_revenue)],
        ].map(([label, value]) => (
          <div className="kpi" key={label} data-kpi={label}>
            <span className="kpi-label">{label}</span>
            <span className="kpi-value">{value}</span>
          </div>
        ))}
      </section>
      {total.uncredited_conversions > 0 ? (
        <p className="muted" data-testid="uncredited">
          {total.uncredited_conversions === 1 ? "1 unverified conversion" : `${whole.format(total.uncredited_conversions)} unverified conversions`} (
          {money.format(total.uncredited_sales_revenue)} in sales) {total.uncredited_conversions === 1 ? "is" : "are"} not credited: the publisher requires
          verified conversions. Conversions, sales revenue and ROAS leave them out.
        </p>
      ) : null}
    </>
  );
}

export function DailyCharts({ daily }: { daily: (Metrics & { day: string })[] }) {
  return (
    <section className="charts">
      <figure className="chart" aria-label="Impressions and clicks by day">
        <figcaption>Impressions and clicks</figcaption>
        <ResponsiveContainer width="100%" height={260}>
          <LineChart data={daily} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" tick={{ fontSize: 12 }} minTickGap={24} />
            <YAxis yAxisId="left" tick={{ fontSize: 12 }} allowDecimals={false} />
            <YAxis yAxisId="right" orientation="right" tick={{ fontSize: 12 }} allowDecimals={false} />
            <Tooltip />
            <Legend />
            <Line yAxisId="left" type="monotone" dataKey="impressions_total" name="Impressions" stroke="#2563eb" dot={false} isAnimationActive={false} />
            <Line yAxisId="right" type="monotone" dataKey="clicks_total" name="Clicks" stroke="#ea580c" dot={false} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </figure>
      <figure className="chart" aria-label="Spend and sales revenue by day">
        <figcaption>Spend and sales revenue</figcaption>
        <ResponsiveContainer width="100%" height={260}>
          <ComposedChart data={daily} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" tick={{ fontSize: 12 }} minTickGap={24} />
            <YAxis tick={{ fontSize: 12 }} />
            <Tooltip formatter={(value) => money.format(Number(value))} />
            <Legend />
            <Bar dataKey="ad_revenue" name="Spend" fill="#94a3b8" isAnimationActive={false} />
            <Line type="monotone" dataKey="sales_revenue" name="Sales revenue" stroke="#16a34a" dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </figure>
      <figure className="chart" aria-label="Click- and view-through sales by day">
        <figcaption>Sales by the touch that won them</figcaption>
        <ResponsiveContainer width="100%" height={260}>
          <ComposedChart data={daily} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" tick={{ fontSize: 12 }} minTickGap={24} />
            <YAxis tick={{ fontSize: 12 }} />
            <Tooltip formatter={(value) => money.format(Number(value))} />
            <Legend />
            <Bar dataKey="sales_revenue_click" name="Click-through" stackId="sales" fill="#16a34a" isAnimationActive={false} />
            <Bar dataKey="sales_revenue_view" name="View-through" stackId="sales" fill="#86efac" isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </figure>
    </section>
  );
}
