"use client";
// The overview: KPI cards against the period before, daily charts and a daily table for an
// account (or, for staff, every account) over a date range, from stats.overview, and the orders
// attribution or settling's rules set aside. Range and account live in the address.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../trpc-client";
import { AccountPicker } from "./account-picker";
import { useCurrency } from "./currency";
import { DailyCharts } from "./daily-charts";
import { dailyColumns } from "./daily-columns";
import { DataTable } from "./data-table";
import { RangePicker, utcMinute, whole } from "./figures";
import { KpiCards } from "./kpi-cards";
import { PipelineStatus } from "./pipeline-status";
import { useUrlAccount, useUrlRange } from "./url-state";
import { WindowsInForce } from "./windows-in-force";

/** The rules settling sets orders aside by, in words. */
const RULES: Record<string, string> = {
  order_total_limit: "order total over the limit",
  line_quantity_limit: "line quantity over the limit",
  orders_per_session: "too many orders from one session",
};

export function Overview() {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const [accountId, setAccountId] = useUrlAccount();
  const currency = useCurrency(accountId);
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
          <KpiCards total={stats.data.total} previous={stats.data.previous} currency={currency} />
          <WindowsInForce />
          {stats.data.total.impressions_total === 0 && stats.data.filteredEvents > 0 ? (
            <p className="notice" data-testid="all-filtered">
              No impression counted in this range: all {whole.format(stats.data.filteredEvents)} beacons were filed as bots or other invalid traffic.{" "}
              <Link
                href={`/dashboard/invalid-traffic?from=${range.startDate}&to=${range.endDate}${accountId ? `&account=${encodeURIComponent(accountId)}` : ""}`}
              >
                See why on the invalid traffic page
              </Link>
              .
            </p>
          ) : stats.data.total.impressions_total === 0 && stats.data.total.conversions_total === 0 ? (
            <p className="empty">No traffic in this range yet. Once the stores show ads, impressions, clicks and sales appear here by day.</p>
          ) : null}
          <DailyCharts daily={stats.data.daily} previous={stats.data.previous.daily} currency={currency} />
          <h2>By day</h2>
          <DataTable
            caption={`Figures by day from ${range.startDate} to ${range.endDate}`}
            columns={dailyColumns}
            rows={stats.data.daily}
            rowKey={(day) => day.day}
            currency={currency}
            defaultSort={{ id: "day", descending: false }}
            fileName={`overview-${range.startDate}-${range.endDate}`}
            sheet="By day"
          />
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
