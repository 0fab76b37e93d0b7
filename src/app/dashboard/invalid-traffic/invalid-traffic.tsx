"use client";
// Beacons that were stored but not counted or billed, by reason: repeats inside the
// de-duplication windows, bots, beacons from another session than their ad was served to, tokens
// counted too often, requests without a user agent, and clicks past an address's minute limit.
import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Empty, QueryState } from "@/app/query-state";
import type { FilteredColumn } from "@/server/core/event-status";
import type { InvalidTrafficDay } from "@/server/store/report-rows";
import { useTRPC } from "../../trpc-client";
import { AccountPicker } from "../account-picker";
import { DataTable } from "../data-table";
import { percent, RangePicker, whole } from "../figures";
import type { TableColumn } from "../table-columns";
import { useUrlAccount, useUrlRange } from "../url-state";

const REASONS: { column: FilteredColumn; label: string; colour: string; explanation: string }[] = [
  { column: "duplicate_events", label: "Duplicates", colour: "#f59e0b", explanation: "the same ad in the same session inside the de-duplication window" },
  { column: "bot_events", label: "Bots", colour: "#dc2626", explanation: "a known bot's user agent" },
  { column: "session_mismatch_events", label: "Session mismatch", colour: "#7c3aed", explanation: "posted by another session than the ad was served to" },
  { column: "token_reuse_events", label: "Token reuse", colour: "#db2777", explanation: "a beacon address already counted as often as one may be" },
  { column: "no_user_agent_events", label: "No user agent", colour: "#0891b2", explanation: "sent without a User-Agent" },
  { column: "click_velocity_events", label: "Click velocity", colour: "#4b5563", explanation: "a click from an address past its clicks per minute" },
];

const filteredOf = (day: InvalidTrafficDay) => REASONS.reduce((sum, { column }) => sum + day[column], 0);

const dayColumns: TableColumn<InvalidTrafficDay>[] = [
  { id: "day", label: "Day", kind: "date", value: (day) => day.day },
  { id: "counted_events", label: "Counted", kind: "integer", value: (day) => day.counted_events, total: "sum" },
  ...REASONS.map(({ column, label }): TableColumn<InvalidTrafficDay> => ({ id: column, label, kind: "integer", value: (day) => day[column], total: "sum" })),
  { id: "filtered", label: "Filtered", kind: "integer", value: filteredOf, total: "sum" },
  {
    id: "share_filtered",
    label: "Share filtered",
    kind: "percent",
    value: (day) => {
      const all = day.counted_events + filteredOf(day);
      return all === 0 ? null : filteredOf(day) / all;
    },
    total: (sum) => {
      const all = sum("counted_events") + sum("filtered");
      return all === 0 ? null : sum("filtered") / all;
    },
  },
];

export function InvalidTraffic() {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const [accountId, setAccountId] = useUrlAccount();
  const me = useQuery(trpc.auth.me.queryOptions());
  const days = useQuery(trpc.stats.invalidTraffic.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const totals = Object.fromEntries(REASONS.map(({ column }) => [column, (days.data ?? []).reduce((sum, day) => sum + day[column], 0)])) as Record<
    FilteredColumn,
    number
  >;
  const counted = (days.data ?? []).reduce((sum, day) => sum + day.counted_events, 0);
  const filtered = REASONS.reduce((sum, { column }) => sum + totals[column], 0);

  return (
    <>
      <h1>Invalid traffic</h1>
      <p className="muted">
        Beacons Tally stored but did not count or bill, by reason. See <a href="/docs/ingest">how beacons are counted</a>.
      </p>
      <form className="toolbar" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
        <AccountPicker value={accountId} onChange={setAccountId} allowAll={me.data?.role === "staff"} />
        <RangePicker range={range} onChange={setRange} />
      </form>
      <QueryState query={days} what="filtered beacons">
        {(list) => (
          <>
            <section className="kpis" aria-label="Filtered beacons">
              {REASONS.map(({ column, label, explanation }) => (
                <div key={column} className="kpi" data-kpi={label} title={explanation}>
                  <span className="kpi-label">{label}</span>
                  <span className="kpi-value">{whole.format(totals[column])}</span>
                </div>
              ))}
              <div className="kpi" data-kpi="Share filtered">
                <span className="kpi-label">Share of all beacons</span>
                <span className="kpi-value">{percent.format(counted + filtered === 0 ? 0 : filtered / (counted + filtered))}</span>
              </div>
            </section>
            {filtered === 0 ? <Empty>No beacon was filtered in this range.</Empty> : null}
            <figure className="chart" aria-label="Filtered beacons by day">
              <figcaption>Filtered beacons by day</figcaption>
              <ResponsiveContainer width="100%" height={260}>
                <BarChart data={list} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="day" tick={{ fontSize: 12 }} minTickGap={24} />
                  <YAxis tick={{ fontSize: 12 }} allowDecimals={false} />
                  <Tooltip />
                  <Legend />
                  {REASONS.map(({ column, label, colour }) => (
                    <Bar key={column} dataKey={column} name={label} stackId="invalid" fill={colour} isAnimationActive={false} />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            </figure>
            <dl className="reasons">
              {REASONS.map(({ column, label, explanation }) => (
                <div key={column}>
                  <dt>{label}</dt>
                  <dd>{explanation}</dd>
                </div>
              ))}
            </dl>
            <DailyTable days={list} range={range} />
          </>
        )}
      </QueryState>
    </>
  );
}

function DailyTable({ days, range }: { days: InvalidTrafficDay[]; range: { startDate: string; endDate: string } }) {
  return (
    <>
      <h2>By day</h2>
      <DataTable
        caption={`Filtered beacons by day from ${range.startDate} to ${range.endDate}`}
        columns={dayColumns}
        rows={days}
        rowKey={(day) => day.day}
        currency={null}
        defaultSort={{ id: "day", descending: false }}
        fileName={`invalid-traffic-${range.startDate}-${range.endDate}`}
        sheet="Invalid traffic"
      />
    </>
  );
}
