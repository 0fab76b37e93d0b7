"use client";
// Which currency code goes beside money on a screen: the account's; for every account at once,
// the one they share, or none when they use several (each figure is then in its own account's
// currency, and a sum across them has no single code). And whose words the figures take.
import { useQuery } from "@tanstack/react-query";
import type { Audience } from "@/server/store/metric-columns";
import { useTRPC } from "../trpc-client";

/** The code for `accountId`, or for all the viewer's accounts when it is "". Null while loading or when they differ. */
export function useCurrency(accountId: string): string | null {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const list = accounts.data ?? [];
  if (accountId) return list.find((a) => a.id === accountId)?.currency.trim() ?? null;
  const codes = new Set(list.map((a) => a.currency.trim()));
  return codes.size === 1 ? [...codes][0]! : null;
}

/**
 * Whose words the figures take: a publisher's (a network is one) when every account shown is one,
 * else an advertiser's. What advertisers spend is a publisher's revenue (store/metric-columns.ts).
 */
export function useAudience(accountId: string): Audience {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const shown = (accounts.data ?? []).filter((a) => !accountId || a.id === accountId);
  return shown.length > 0 && shown.every((a) => a.kind !== "advertiser") ? "publisher" : "advertiser";
}
