"use client";
// The one zone a dashboard page reads its days and writes its times in, from one context so no
// screen picks its own: a member's account's zone; for staff the zone the address asks for
// (`tz=Area/City`, one the report tables keep), else the zone of the account they look at (the
// `account` in the address, a campaign's advertiser on its page), else the operator's default.
// The layout gives the viewer's own default and the zones kept (view-zone.ts decides them).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useSearchParams } from "next/navigation";
import { createContext, type ReactNode, useContext, useRef } from "react";
import { Busy } from "@/app/query-state";
import { UTC } from "@/server/core/time-zones";
import { useTRPC } from "../trpc-client";
import { readZone } from "./url-views";

export interface ViewZone {
  /** The zone days are local dates in and times are written in. */
  zone: string;
  /** The zone the page opens in when the address asks for none. */
  viewDefault: string;
  /** The zones the report tables keep: those staff may choose. */
  kept: string[];
  /** Whether the viewer chooses (staff); a member reads in their account's zone. */
  chooses: boolean;
}

const ZoneContext = createContext<ViewZone | null>(null);

/** The page's zone; outside a dashboard page (a test rendering one part), UTC. */
export function useZone(): ViewZone {
  return useContext(ZoneContext) ?? { zone: UTC, viewDefault: UTC, kept: [UTC], chooses: false };
}

/** The one account a staff page is about: its `account`, or the campaign its path names. */
function viewedAccount(pathname: string, params: URLSearchParams): { accountId?: string; campaignId?: string } {
  const campaign = /^\/dashboard\/campaigns\/([^/]+)/.exec(pathname)?.[1];
  if (campaign && campaign !== "new") return { campaignId: decodeURIComponent(campaign) };
  const account = params.get("account");
  return account ? { accountId: account } : {};
}

export function ZoneProvider({ staff, initial, children }: { staff: boolean; initial: { zone: string; kept: string[] }; children: ReactNode }) {
  const trpc = useTRPC();
  const pathname = usePathname() ?? "";
  const params = useSearchParams();
  const viewed = staff ? viewedAccount(pathname, new URLSearchParams(params.toString())) : {};
  const aboutOne = viewed.accountId !== undefined || viewed.campaignId !== undefined;
  const ofView = useQuery({
    ...trpc.zones.view.queryOptions(viewed),
    enabled: aboutOne,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const kept = ofView.data?.kept ?? initial.kept;
  // An account or campaign the viewer may not see opens in the viewer's own default, as no account would.
  const viewDefault = aboutOne && !ofView.isError ? ofView.data?.zone : initial.zone;
  const asked = staff ? readZone(params.get("tz"), kept) : null;
  // While another account's zone loads (a page that writes its account into the address), the
  // page keeps the zone it had: putting Busy in its place would unmount it and lose what the
  // viewer was doing (an open form).
  const shown = useRef<{ zone: string; viewDefault: string } | null>(null);
  const last = shown.current;
  const known = viewDefault !== undefined ? { zone: asked ?? viewDefault, viewDefault } : last && { zone: asked ?? last.zone, viewDefault: last.viewDefault };
  // Only the first time, before the account's zone is known: a page read in another zone first would show other days.
  if (known === null) return <Busy what="the account's time zone" />;
  shown.current = known;
  return <ZoneContext.Provider value={{ ...known, kept, chooses: staff }}>{children}</ZoneContext.Provider>;
}
