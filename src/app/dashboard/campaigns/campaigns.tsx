"use client";
// Campaigns with their numbers over a range: filter by name and status, sort by any column,
// choose the columns and download them (the range, account, sort and columns are in the address).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useTRPC } from "../../trpc-client";
import { AccountPicker } from "../account-picker";
import { useCurrency } from "../currency";
import { QueryTable } from "../data-table";
import { RangePicker } from "../figures";
import { useMayChange } from "../may-change";
import { useUrlAccount, useUrlRange, useUrlState } from "../url-state";
import { campaignColumns } from "./campaign-columns";

const STATUSES = ["active", "paused", "draft", "ended", "archived"] as const;

export function Campaigns() {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const [accountId, setAccountId] = useUrlAccount();
  const currency = useCurrency(accountId);
  // The filters live in the address too (`q`, `status`): the name as typed, without a history entry per key.
  const { params, set } = useUrlState();
  const [search, setSearchText] = useState(() => params.get("q") ?? "");
  const setSearch = (value: string) => {
    setSearchText(value);
    set({ q: value.trim() || null }, { replace: true });
  };
  const asked = params.get("status") ?? "";
  const status = (STATUSES as readonly string[]).includes(asked) ? asked : "";
  const setStatus = (value: string) => set({ status: value || null });
  const me = useQuery(trpc.auth.me.queryOptions());
  const mayChange = useMayChange();
  const list = useQuery(trpc.campaigns.list.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));

  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (list.data?.campaigns ?? []).filter((c) => (!needle || c.name.toLowerCase().includes(needle)) && (!status || c.campaign_status === status));
  }, [list.data, search, status]);

  return (
    <>
      <h1>Campaigns</h1>
      <form className="toolbar" aria-label="Which campaigns" onSubmit={(e) => e.preventDefault()}>
        <AccountPicker value={accountId} onChange={setAccountId} allowAll={me.data?.role === "staff"} />
        <label>
          Name
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Filter by name" />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <RangePicker range={range} onChange={setRange} />
        {mayChange ? (
          <Link className="button" href="/dashboard/campaigns/new">
            New campaign
          </Link>
        ) : null}
      </form>
      <QueryTable
        query={list}
        what="campaigns"
        rowsOf={() => rows}
        empty={(list.data?.campaigns.length ?? 0) === 0 ? "No campaigns in this account yet." : "No campaign matches the filter."}
        caption={`Campaigns from ${range.startDate} to ${range.endDate}`}
        columns={campaignColumns}
        rowKey={(c) => c.campaign_id}
        currency={currency}
        defaultSort={{ id: "impressions_total", descending: true }}
        fileName={`campaigns-${range.startDate}-${range.endDate}`}
        sheet="Campaigns"
      />
    </>
  );
}
