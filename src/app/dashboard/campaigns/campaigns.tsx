"use client";
// Campaigns with their numbers over a range: filter by name and status, sort by any column,
// choose the columns and download them (the range, account, sort and columns are in the address).
// Whoever may change the campaigns selects rows and pauses, resumes or budgets them together; a new
// campaign is offered only where one can be made (an advertiser the person may change).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useTRPC } from "../../trpc-client";
import { AccountPicker } from "../account-picker";
import { useAudience, useCurrency } from "../currency";
import { QueryTable } from "../data-table";
import { RangePicker } from "../figures";
import { useUrlAccount, useUrlRange, useUrlState } from "../url-state";
import { BulkActions } from "./bulk-actions";
import { bidModelColumn, campaignColumns } from "./campaign-columns";

const STATUSES = ["active", "paused", "draft", "ended", "archived"] as const;

/**
 * Whether the person changes campaigns here: staff always (on "All accounts" the form asks which
 * advertiser), an advertiser's admin on its own account; never a viewer, nor a publisher's or a
 * network's users, whose lists hold other accounts' campaigns.
 */
function useManagesCampaigns(accountId: string): boolean {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const viewer = me.data;
  if (!viewer || !accounts.data) return false;
  const kindOf = (id: string | null) => accounts.data.find((a) => a.id === id)?.kind;
  if (viewer.role === "staff") return accountId === "" || kindOf(accountId) === "advertiser";
  return viewer.memberRole === "admin" && kindOf(viewer.accountId) === "advertiser";
}

// Over 80 lines on purpose: the list's filters, selection and table read best in one place.
export function Campaigns() {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const [accountId, setAccountId] = useUrlAccount();
  const currency = useCurrency(accountId);
  const audience = useAudience(accountId);
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
  const manages = useManagesCampaigns(accountId);
  const list = useQuery(trpc.campaigns.list.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const [selected, setSelected] = useState<Set<string>>(() => new Set());

  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (list.data?.campaigns ?? []).filter((c) => (!needle || c.name.toLowerCase().includes(needle)) && (!status || c.campaign_status === status));
  }, [list.data, search, status]);
  // Several advertisers' campaigns (all accounts, or a publisher's inventory): whose each one is.
  const columns = useMemo(() => {
    const several = new Set((list.data?.campaigns ?? []).map((c) => c.advertiser_id)).size > 1;
    const names = list.data?.advertiserNames ?? {};
    return campaignColumns(audience, several ? (id) => names[id] ?? id : undefined);
  }, [list.data, audience]);
  // Only rows shown are changed: a selection hidden by the filter stays out of the action.
  const chosen = rows.filter((c) => selected.has(c.campaign_id)).map((c) => ({ id: c.campaign_id, name: c.name }));
  const nothingYet = (list.data?.campaigns.length ?? 0) === 0;

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
        {manages ? (
          <Link className="button" href="/dashboard/campaigns/new">
            New campaign
          </Link>
        ) : null}
      </form>
      {manages ? <BulkActions chosen={chosen} currency={currency} onDone={() => setSelected(new Set())} /> : null}
      <QueryTable
        query={list}
        what="campaigns"
        rowsOf={() => rows}
        empty={
          !nothingYet
            ? "No campaign matches the filter."
            : manages
              ? "No campaigns in this account yet: New campaign starts one."
              : "No campaign runs here in this range yet: advertisers and their account managers make campaigns."
        }
        caption={`Campaigns from ${range.startDate} to ${range.endDate}`}
        columns={columns}
        besideInFiles={[{ after: "bid", column: bidModelColumn }]}
        selection={manages ? { selected, onChange: setSelected, label: (c) => c.name } : undefined}
        rowKey={(c) => c.campaign_id}
        currency={currency}
        defaultSort={{ id: "impressions_total", descending: true }}
        fileName={`campaigns-${range.startDate}-${range.endDate}`}
        sheet="Campaigns"
      />
    </>
  );
}
