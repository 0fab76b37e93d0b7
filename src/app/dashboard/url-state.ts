"use client";
// Views in the address: the range (`from`, `to`), the account, the campaign and each table's sort
// and columns are search params, so a link opens the same view and the back button steps back
// through the choices. Every change is a history entry (router.push) unless asked otherwise.
import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect } from "react";
import { useTRPC } from "../trpc-client";
import { lastDays, type Range, readRange } from "./url-views";
import { useZone } from "./zone-context";

export type UrlChanges = Record<string, string | null>;

/** The address the last change asked for, until the page shows it (one router per page, so one per module). */
let pending: { pathname: string; search: string } | null = null;

/** The page's search params and a setter that merges changes into them (null or "" removes a key). */
export function useUrlState() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const search = params.toString();
  // Once the page shows an address, no change is waiting to reach it.
  useEffect(() => {
    if (search !== undefined) pending = null;
  }, [search]);
  const set = useCallback(
    (changes: UrlChanges, { replace = false, onlyMissing = false }: { replace?: boolean; onlyMissing?: boolean } = {}) => {
      // The address as the last change asked for it, else as it is: two changes made before the
      // router has shown the first (a filter applied, then a kind chosen at once) must not undo
      // each other.
      const base = pending?.pathname === pathname ? pending.search : window.location.search;
      const next = new URLSearchParams(base);
      for (const [key, value] of Object.entries(changes)) {
        // A default filled in (`onlyMissing`) never overwrites what the person chose meanwhile.
        if (onlyMissing && next.has(key)) continue;
        if (value === null || value === "") next.delete(key);
        else next.set(key, value);
      }
      // Commas may stand in a query as they are: `cols=a,b,c` reads better than `cols=a%2Cb%2Cc`.
      const query = next.toString().replaceAll("%2C", ",");
      if (onlyMissing && query === new URLSearchParams(base).toString().replaceAll("%2C", ",")) return;
      const url = query ? `${pathname}?${query}` : pathname;
      pending = { pathname, search: query };
      if (replace) router.replace(url, { scroll: false });
      else router.push(url, { scroll: false });
    },
    [router, pathname],
  );
  return { params, set };
}

/**
 * The range in the address (`from`, `to`), local dates in the page's zone (zone-context.tsx), the
 * last 30 days there when it holds none; when it holds one
 * a view cannot show (not days, in the wrong order, over 366 days), the last 30 days and a
 * sentence saying what was asked and what is shown instead (RangePicker shows it). The range
 * carries its zone (`timeZone`), so every query made with it reads in the page's zone.
 */
export function useUrlRange(): [Range & { timeZone: string }, (range: Range) => void, string | null] {
  const { params, set } = useUrlState();
  const { zone } = useZone();
  const { range, problem } = readRange({ from: params.get("from"), to: params.get("to") }, lastDays(30, zone));
  const setRange = useCallback((next: Range) => set({ from: next.startDate, to: next.endDate }), [set]);
  return [{ ...range, timeZone: zone }, setRange, problem];
}

/** The account in the address (`account`): "" for the viewer's own view, as for an account the viewer does not see. */
export function useUrlAccount(): [string, (accountId: string) => void] {
  const { params, set } = useUrlState();
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const setAccount = useCallback((accountId: string) => set({ account: accountId }), [set]);
  const asked = params.get("account") ?? "";
  const known = !accounts.data || accounts.data.some((account) => account.id === asked);
  return [known ? asked : "", setAccount];
}

/** The campaign in the address (`campaign`): "" for none. */
export function useUrlCampaign(): [string, (campaignId: string) => void] {
  const { params, set } = useUrlState();
  const setCampaign = useCallback((campaignId: string) => set({ campaign: campaignId }), [set]);
  return [params.get("campaign") ?? "", setCampaign];
}
