"use client";
// The overview: KPI cards and daily charts for an account (or, for staff, every account) over a
// date range, from stats.overview.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../trpc-client";

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const lastDays = (days: number) => ({ startDate: isoDay(Date.now() - (days - 1) * DAY_MS), endDate: isoDay(Date.now()) });

const whole = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const money = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 2 });

export function Overview() {
  const trpc = useTRPC();
  const [range, setRange] = useState(() => lastDays(30));
  const [accountId, setAccountId] = useState<string>("");
  const me = useQuery(trpc.auth.me.queryOptions());
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const stats = useQuery(trpc.stats.overview.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const staff = me.data?.role === "staff";

  return (
    <>
      <h1>Overview</h1>
      <form className="toolbar" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
        {staff ? (
          <label>
            Account
            <select value={accountId} onChange={(e) => setAccountId(e.target.value)}>
              <option value="">All accounts</option>
              {(accounts.data ?? []).map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({a.kind})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="muted">{accounts.data?.[0]?.name}</span>
        )}
        <fieldset className="presets">
          <legend className="visually-hidden">Range</legend>
          {[7, 30, 90].map((days) => (
            <button key={days} type="button" className="chip" aria-pressed={range.startDate === lastDays(days).startDate && range.endDate === lastDays(days).endDate} onClick={() => setRange(lastDays(days))}>
              Last {days} days
            </button>
          ))}
        </fieldset>
        <label>
          From
          <input type="date" value={range.startDate} max={range.endDate} onChange={(e) => e.target.value && setRange({ ...range, startDate: e.target.value })} />
        </label>
        <label>
          To
          <input type="date" value={range.endDate} min={range.startDate} onChange={(e) => e.target.value && setRange({ ...range, endDate: e.target.value })} />
        </label>
      </form>

      {stats.error ? (
        <p role="alert" className="error">
          The figures could not be loaded: {stats.error.message}
        </p>
      ) : !stats.data ? (
        <p aria-busy="true" className="muted">
          Loading figures…
        </p>
      ) : (
        <>
          <section className="kpis" aria-label="Totals">
            {[
              ["Impressions", whole.format(stats.data.total.impressions_total)],
              ["Views", whole.format(stats.data.total.views_total)],
              ["Clicks", whole.format(stats.data.total.clicks_total)],
              ["CTR", percent.format(stats.data.total.ctr)],
              ["Spend", money.format(stats.data.total.ad_revenue)],
              ["Conversions", whole.format(stats.data.total.conversions_total)],
              ["Sales revenue", money.format(stats.data.total.sales_revenue)],
              ["ROAS", `${money.format(stats.data.total.roas)}×`],
            ].map(([label, value]) => (
              <div className="kpi" key={label} data-kpi={label}>
                <span className="kpi-label">{label}</span>
                <span className="kpi-value">{value}</span>
              </div>
            ))}
          </section>
          {stats.data.total.impressions_total === 0 && stats.data.total.conversions_total === 0 ? (
            <p className="empty">No traffic in this range yet. Once the stores show ads, impressions, clicks and sales appear here by day.</p>
          ) : null}
          <section className="charts">
            <figure className="chart" aria-label="Impressions and clicks by day">
              <figcaption>Impressions and clicks</figcaption>
              <ResponsiveContainer width="100%" height={260}>
                <LineChart data={stats.data.daily} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
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
                <ComposedChart data={stats.data.daily} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
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
          </section>
        </>
      )}
    </>
  );
}
