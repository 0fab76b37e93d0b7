"use client";
// The overview: KPI cards and daily charts for an account (or, for staff, every account) over a
// date range, from stats.overview, and the orders attribution or settling's rules set aside.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../trpc-client";
import { AccountPicker } from "./account-picker";
import { DailyCharts, KpiCards, lastDays, RangePicker, utcMinute } from "./figures";
import { PipelineStatus } from "./pipeline-status";
import { WindowsInForce } from "./windows-in-force";

/** The rules settling sets orders aside by, in words. */
const RULES: Record<string, string> = {
  order_total_limit: "order total over the limit",
  line_quantity_limit: "line quantity over the limit",
  orders_per_session: "too many orders from one session",
};

export function Overview() {
  const trpc = useTRPC();
  const [range, setRange] = useState(() => lastDays(30));
  const [accountId, setAccountId] = useState<string>("");
  const me = useQuery(trpc.auth.me.queryOptions());
  const stats = useQuery(trpc.stats.overview.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const setAside = useQuery(trpc.stats.setAsideOrders.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const setAsideByRule = useQuery(trpc.stats.ordersSetAsideByRule.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));

  return (
    <>
      <h1>Overview</h1>
      <form className="toolbar" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
        <AccountPicker value={accountId} onChange={setAccountId} allowAll={me.data?.role === "staff"} />
        <RangePicker range={range} onChange={setRange} />
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
          <KpiCards total={stats.data.total} />
          <WindowsInForce />
          {stats.data.total.impressions_total === 0 && stats.data.total.conversions_total === 0 ? (
            <p className="empty">No traffic in this range yet. Once the stores show ads, impressions, clicks and sales appear here by day.</p>
          ) : null}
          <DailyCharts daily={stats.data.daily} />
          {setAside.data && setAside.data.total > 0 ? (
            <section className="notice" aria-label="Orders set aside">
              <h2>Orders set aside</h2>
              <p>
                {setAside.data.total === 1 ? "1 order" : `${setAside.data.total} orders`} in this range were set aside, by a rule or because they could not be
                processed, and are missing from these figures. Every other order was attributed. The latest:
              </p>
              <ul>
                {setAside.data.latest.map((order) => (
                  <li key={`${order.publisher_id}/${order.order_id}`}>
                    order <code>{order.order_id}</code> of <code>{order.publisher_id}</code>, received {utcMinute(order.received_at)} UTC: {order.reason}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {setAsideByRule.data && setAsideByRule.data.total > 0 ? (
            <section className="notice" aria-label="Orders set aside by rule">
              <h2>Orders set aside by rule</h2>
              <p>
                {setAsideByRule.data.total === 1 ? "1 order" : `${setAsideByRule.data.total} orders`} in this range broke a rule when they were settled and are
                missing from these figures (
                {Object.entries(setAsideByRule.data.byRule)
                  .map(([rule, count]) => `${RULES[rule] ?? rule}: ${count}`)
                  .join(", ")}
                ). A publisher sets its limits on its account page. The latest:
              </p>
              <ul>
                {setAsideByRule.data.latest.map((order) => (
                  <li key={`${order.publisher_id}/${order.order_id}/${order.received_at.toISOString()}`}>
                    order <code>{order.order_id}</code> of <code>{order.publisher_id}</code>, received {utcMinute(order.received_at)} UTC (
                    {RULES[order.rule] ?? order.rule}): {order.reason}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </>
      )}
      <PipelineStatus />
    </>
  );
}
