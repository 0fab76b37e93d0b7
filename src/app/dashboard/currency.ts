"use client";
// Which currency code goes beside money on a screen: the account's; for every account at once,
// the one they share, or none when they use several (each figure is then in its own account's
// currency, and a sum across them has no single code).
import { useQuery } from "@tanstack/react-query";
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
