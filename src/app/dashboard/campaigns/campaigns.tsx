"use client";
// Campaigns with their numbers over a range: filter by name and status, sort by any column.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useTRPC } from "../../trpc-client";
import { AccountPicker } from "../account-picker";
import { lastDays, money, percent, RangePicker, whole } from "../figures";
import { PACING_COLUMNS } from "./pacing-cells";

const COLUMNS = [
  ["name", "Campaign"],
  ["campaign_status", "Status"],
  ["campaign_type", "Type"],
  ["impressions_total", "Impressions"],
  ["clicks_total", "Clicks"],
  ["ctr", "CTR"],
  ["ad_revenue", "Spend"],
  ["conversions_total", "Conversions"],
  ["sales_revenue", "Sales"],
  ["roas", "ROAS"],
] as const;
type SortKey = (typeof COLUMNS)[number][0];

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function Campaigns() {
  const trpc = useTRPC();
  const [range, setRange] = useState(() => lastDays(30));
  const [accountId, setAccountId] = useState("");
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState("");
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: "impressions_total", descending: true });
  const me = useQuery(trpc.auth.me.queryOptions());
  const list = useQuery(trpc.campaigns.list.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));

  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const filtered = (list.data?.campaigns ?? []).filter(
      (c) => (!needle || c.name.toLowerCase().includes(needle)) && (!status || c.campaign_status === status),
    );
    const sign = sort.descending ? -1 : 1;
    return [...filtered].sort((a, b) => {
      const x = a[sort.key];
      const y = b[sort.key];
      return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * sign;
    });
  }, [list.data, search, status, sort]);

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
            {["active", "paused", "draft", "ended", "archived"].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <RangePicker range={range} onChange={setRange} />
        <Link className="button" href="/dashboard/campaigns/new">
          New campaign
        </Link>
      </form>
      {list.error ? (
        <p role="alert" className="error">
          The campaigns could not be loaded: {list.error.message}
        </p>
      ) : list.isPending ? (
        <p aria-busy="true" className="muted">
          Loading campaigns…
        </p>
      ) : rows.length === 0 ? (
        <p className="empty">{(list.data?.campaigns.length ?? 0) === 0 ? "No campaigns in this account yet." : "No campaign matches the filter."}</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <caption className="visually-hidden">
              Campaigns from {range.startDate} to {range.endDate}
            </caption>
            <thead>
              <tr>
                {COLUMNS.map(([key, label]) => (
                  <th key={key} scope="col" aria-sort={sort.key === key ? (sort.descending ? "descending" : "ascending") : undefined}>
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => setSort({ key, descending: sort.key === key ? !sort.descending : key !== "name" })}
                    >
                      {label}
                    </button>
                  </th>
                ))}
                {PACING_COLUMNS.map(({ key, label }) => (
                  <th key={key} scope="col">
                    {label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.campaign_id}>
                  <td>
                    <Link href={`/dashboard/campaigns/${encodeURIComponent(c.campaign_id)}`}>{c.name}</Link>
                  </td>
                  <td>
                    <span className={`badge ${c.campaign_status}`}>{c.campaign_status}</span>
                  </td>
                  <td>{c.campaign_type}</td>
                  <td>{whole.format(c.impressions_total)}</td>
                  <td>{whole.format(c.clicks_total)}</td>
                  <td>{percent.format(c.ctr)}</td>
                  <td>{money.format(c.ad_revenue)}</td>
                  <td>{whole.format(c.conversions_total)}</td>
                  <td>{money.format(c.sales_revenue)}</td>
                  <td>{money.format(c.roas)}</td>
                  {PACING_COLUMNS.map(({ key, cell }) => (
                    <td key={key}>{c.pacing ? cell(c.pacing) : "—"}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
