"use client";
// The daily charts of the overview and the campaign page (recharts), with the period just
// before drawn over them on demand: dashed, day by day from the first (day 1 against day 1). That
// choice is in the address (`compare=1`), so a link or a reload draws it again.
import { useEffect, useId, useState } from "react";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type Audience, metricFor } from "@/server/store/metric-columns";
import { alignByDay, type ChartRow, type Day } from "./comparison";
import { formatFigure, formatTick } from "./figures";
import { useUrlState } from "./url-state";

const axisTick = { fontSize: 12 };
const margin = { top: 8, right: 8, bottom: 0, left: 0 };
const tick = (value: number) => formatTick(value);

/** The tooltip's heading: the day, and the day it is compared with when the period before is drawn. */
function dayLabel(rows: ChartRow[], compare: boolean) {
  return (label: unknown) => {
    const row = rows.find((r) => r.day === label);
    return compare && row?.previousDay ? `${String(label)} (before: ${row.previousDay})` : String(label);
  };
}

/** A figure of the period before, drawn dashed on its axis (a call, not a component: recharts reads its chart's direct children). */
function previousLine(axis: string, dataKey: string, name: string, stroke: string) {
  return <Line yAxisId={axis} type="monotone" dataKey={dataKey} name={name} stroke={stroke} strokeDasharray="5 4" dot={false} isAnimationActive={false} />;
}

// Over 80 lines on purpose: three charts that share their rows, toggle and tooltips, in the order the page shows them.
export function DailyCharts({ daily, previous, currency, audience }: { daily: Day[]; previous?: Day[]; currency: string | null; audience: Audience }) {
  const { params, set } = useUrlState();
  const asked = params.get("compare") === "1";
  // Checked at once, before the router shows the new address; the address wins when it changes (back, a link).
  const [compare, setCompare] = useState(asked);
  useEffect(() => setCompare(asked), [asked]);
  const toggleId = useId();
  const rows = alignByDay(daily, previous);
  const label = dayLabel(rows, compare);
  const moneyTip = (value: unknown) => formatFigure(Number(value), "money", currency);
  const countTip = (value: unknown) => formatFigure(Number(value), "count", currency);
  const spend = metricFor("ad_revenue", audience).label;
  const showPrevious = compare && previous !== undefined;
  return (
    <>
      {previous ? (
        <p className="toolbar">
          <input
            id={toggleId}
            type="checkbox"
            checked={compare}
            onChange={(e) => {
              setCompare(e.target.checked);
              set({ compare: e.target.checked ? "1" : null }, { replace: true });
            }}
          />
          <label htmlFor={toggleId}>Draw the period before (dashed)</label>
        </p>
      ) : null}
      <section className="charts">
        <figure className="chart" aria-label="Impressions and clicks by day" data-chart="traffic">
          <figcaption>Impressions and clicks</figcaption>
          <div className="chart-box">
            <ResponsiveContainer width="100%" height="100%">
              <ComposedChart data={rows} margin={margin}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="day" tick={axisTick} minTickGap={24} />
                <YAxis yAxisId="impressions" tick={axisTick} allowDecimals={false} tickFormatter={tick} />
                <YAxis yAxisId="clicks" orientation="right" tick={axisTick} allowDecimals={false} tickFormatter={tick} />
                <Tooltip formatter={countTip} labelFormatter={label} />
                <Legend />
                <Line yAxisId="impressions" type="monotone" dataKey="impressions_total" name="Impressions" stroke="#2563eb" isAnimationActive={false} />
                <Line yAxisId="clicks" type="monotone" dataKey="clicks_total" name="Clicks" stroke="#ea580c" isAnimationActive={false} />
                {showPrevious ? previousLine("impressions", "previous_impressions_total", "Impressions, before", "#2563eb") : null}
                {showPrevious ? previousLine("clicks", "previous_clicks_total", "Clicks, before", "#ea580c") : null}
              </ComposedChart>
            </ResponsiveContainer>
          </div>
        </figure>
        <figure className="chart" aria-label={`${spend} and sales revenue by day`} data-chart="money">
          <figcaption>
            {spend} (right axis) and sales revenue{currency ? ` in ${currency}` : ""}
          </figcaption>
          <div className="chart-box">
            <ResponsiveContainer width="100%" height="100%">
              <ComposedChart data={rows} margin={margin}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="day" tick={axisTick} minTickGap={24} />
                <YAxis yAxisId="sales" tick={axisTick} tickFormatter={tick} />
                <YAxis yAxisId="spend" orientation="right" tick={axisTick} tickFormatter={tick} />
                <Tooltip formatter={moneyTip} labelFormatter={label} />
                <Legend />
                <Bar yAxisId="spend" dataKey="ad_revenue" name={spend} fill="#94a3b8" isAnimationActive={false} />
                <Line yAxisId="sales" type="monotone" dataKey="sales_revenue" name="Sales revenue" stroke="#16a34a" isAnimationActive={false} />
                {showPrevious ? previousLine("spend", "previous_ad_revenue", `${spend}, before`, "#64748b") : null}
                {showPrevious ? previousLine("sales", "previous_sales_revenue", "Sales revenue, before", "#16a34a") : null}
              </ComposedChart>
            </ResponsiveContainer>
          </div>
        </figure>
        <figure className="chart" aria-label="Click- and view-through sales by day" data-chart="touch">
          <figcaption>Sales by the touch that won them</figcaption>
          <div className="chart-box">
            <ResponsiveContainer width="100%" height="100%">
              <ComposedChart data={rows} margin={margin}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="day" tick={axisTick} minTickGap={24} />
                <YAxis tick={axisTick} tickFormatter={tick} />
                <Tooltip formatter={moneyTip} labelFormatter={label} />
                <Legend />
                <Bar dataKey="sales_revenue_click" name="Click-through" stackId="sales" fill="#16a34a" isAnimationActive={false} />
                <Bar dataKey="sales_revenue_view" name="View-through" stackId="sales" fill="#86efac" isAnimationActive={false} />
              </ComposedChart>
            </ResponsiveContainer>
          </div>
        </figure>
      </section>
    </>
  );
}
