"use client";
// Beacons that were stored but not counted or billed, by reason: repeats of the same ad in the
// same session within the de-duplication window, and bots (by user agent).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../../trpc-client";
import { AccountPicker } from "../account-picker";
import { lastDays, percent, RangePicker, whole } from "../figures";

export function InvalidTraffic() {
  const trpc = useTRPC();
  const [range, setRange] = useState(() => lastDays(30));
  const [accountId, setAccountId] = useState("");
  const me = useQuery(trpc.auth.me.queryOptions());
  const stats = useQuery(trpc.stats.overview.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const t = stats.data?.total;
  const counted = t ? t.impressions_total + t.views_total + t.clicks_total : 0;
  const invalid = t ? t.duplicate_events + t.bot_events : 0;

  return (
    <>
      <h1>Invalid traffic</h1>
      <p className="muted">Beacons Tally stored but did not count or bill: repeats of an ad in the same session within the de-duplication window, and known bots. See <a href="/docs/ingest">how beacons are counted</a>.</p>
      <form className="toolbar" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
        <AccountPicker value={accountId} onChange={setAccountId} allowAll={me.data?.role === "staff"} />
        <RangePicker range={range} onChange={setRange} />
      </form>
      {stats.error ? <p role="alert" className="error">{stats.error.message}</p> : !t ? <p aria-busy="true" className="muted">Loading…</p> : (
        <>
          <section className="kpis" aria-label="Filtered beacons">
            <div className="kpi" data-kpi="Duplicates"><span className="kpi-label">Duplicates</span><span className="kpi-value">{whole.format(t.duplicate_events)}</span></div>
            <div className="kpi" data-kpi="Bots"><span className="kpi-label">Bots</span><span className="kpi-value">{whole.format(t.bot_events)}</span></div>
            <div className="kpi" data-kpi="Share filtered"><span className="kpi-label">Share of all beacons</span><span className="kpi-value">{percent.format(counted + invalid === 0 ? 0 : invalid / (counted + invalid))}</span></div>
          </section>
          {invalid === 0 ? <p className="empty">No beacon was filtered in this range.</p> : null}
          <figure className="chart" aria-label="Filtered beacons by day">
            <figcaption>Filtered beacons by day</figcaption>
            <ResponsiveContainer width="100%" height={260}>
              <BarChart data={stats.data!.daily} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="day" tick={{ fontSize: 12 }} minTickGap={24} />
                <YAxis tick={{ fontSize: 12 }} allowDecimals={false} />
                <Tooltip />
                <Legend />
                <Bar dataKey="duplicate_events" name="Duplicates" stackId="invalid" fill="#f59e0b" isAnimationActive={false} />
                <Bar dataKey="bot_events" name="Bots" stackId="invalid" fill="#dc2626" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </figure>
        </>
      )}
    </>
  );
}
