"use client";
// The overview: headline figures and folded groups against the period before, daily charts and a
// daily table for an account (or, for staff, every account) over a date range, from
// stats.overview, the heatmap of hours (hours-heatmap.tsx), and the orders attribution or settling's rules set aside. Range, account and
// whether the charts draw the period before live in the address.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Empty, QueryState } from "../query-state";
import { useTRPC } from "../trpc-client";
import { AccountPicker } from "./account-picker";
import { firstDayWithFigures } from "./comparison";
import { useAudience, useCurrency } from "./currency";
import { DailyCharts } from "./daily-charts";
import { dailyColumns } from "./daily-columns";
import { DataTable } from "./data-table";
import { RangePicker, whole } from "./figures";
import { HoursHeatmap } from "./hours-heatmap";
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
  const audience = useAudience(accountId);
  const me = useQuery(trpc.auth.me.queryOptions());
  const stats = useQuery(trpc.stats.overview.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));

  return (
    <>
      <h1>Overview</h1>
      <form className="toolbar" aria-label="What to show" onSubmit={(e) => e.preventDefault()}>
        <AccountPicker value={accountId} onChange={setAccountId} allowAll={me.data?.role === "staff"} />
        <RangePicker range={range} onChange={setRange} />
      </form>
      <QueryState query={stats} what="figures">
        {(data) => (
          <>
            <KpiCards
              total={data.total}
              previous={data.previous}
              currency={currency}
              audience={audience}
              started={firstDayWithFigures(data.previous.daily, data.daily)}
              start="the first day with figures"
            />
            <WindowsInForce />
            {data.total.impressions_total === 0 && data.filteredEvents > 0 ? (
              <p className="notice" data-testid="all-filtered">
                No impression counted in this range: all {whole.format(data.filteredEvents)} beacons were filed as bots or other invalid traffic.{" "}
                <Link
                  href={`/dashboard/invalid-traffic?from=${range.startDate}&to=${range.endDate}${accountId ? `&account=${encodeURIComponent(accountId)}` : ""}`}
                >
                  See why on the invalid traffic page
                </Link>
                .
              </p>
            ) : data.total.impressions_total === 0 && data.total.conversions_total === 0 ? (
              <Empty>No traffic in this range yet. Once the stores show ads, impressions, clicks and sales appear here by day.</Empty>
            ) : null}
            <DailyCharts daily={data.daily} previous={data.previous.daily} currency={currency} audience={audience} />
            <h2>By day</h2>
            <DataTable
              caption={`Figures by day from ${range.startDate} to ${range.endDate}`}
              columns={dailyColumns(audience)}
              rows={data.daily}
              rowKey={(day) => day.day}
              currency={currency}
              defaultSort={{ id: "day", descending: false }}
              fileName={`overview-${range.startDate}-${range.endDate}`}
              sheet="By day"
            />
            <HoursHeatmap range={range} accountId={accountId || undefined} currency={currency} audience={audience} fileName="overview" folded />
            <SetAsideNotices range={range} accountId={accountId} />
          </>
        )}
      </QueryState>
      {/* The platform's lags and backlogs: staff only (stats.pipeline refuses members). */}
      {me.data?.role === "staff" ? <PipelineStatus /> : null}
    </>
  );
}
