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
import { RangePicker, whole } from "./figures";
import { KpiCards } from "./kpi-cards";
import { PipelineStatus } from "./pipeline-status";
import { SetAsideNotices } from "./set-aside-notices";
import { useUrlAccount, useUrlRange } from "./url-state";
import { WindowsInForce } from "./windows-in-force";

export function Overview() {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const [accountId, setAccountId] = useUrlAccount();
  const currency = useCurrency(accountId);
  const me = useQuery(trpc.auth.me.queryOptions());
  const stats = useQuery(trpc.stats.overview.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));

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
          <SetAsideNotices range={range} accountId={accountId} />
        </>
      )}
      {/* The platform's lags and backlogs: staff only (stats.pipeline refuses members). */}
      {me.data?.role === "staff" ? <PipelineStatus /> : null}
    </>
  );
}
