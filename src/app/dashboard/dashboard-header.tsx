"use client";
// The dashboard's header: the screens, the saved views, the time zone (staff choose it: the
// screens' links keep the choice), who is signed in and in which role (the team table's words:
// account admin, account viewer), and signing out. On a phone it keeps to two
// lines: the screens fold behind a Menu button.
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { useTRPC } from "../trpc-client";
import { SavedViews } from "./saved-views";
import { ZonePicker } from "./zone-picker";

const SCREENS = [
  ["/dashboard", "Overview"],
  ["/dashboard/campaigns", "Campaigns"],
  ["/dashboard/accounts", "Accounts"],
  ["/dashboard/api-keys", "API keys"],
  ["/dashboard/exports", "Exports"],
  ["/dashboard/invalid-traffic", "Invalid traffic"],
  ["/dashboard/activity", "Activity"],
  ["/dashboard/settings", "Settings"],
] as const;

/** The role in the words of the team table (docs/teams.md). */
export const roleWords = (role: "staff" | "member", memberRole?: "admin" | "viewer") =>
  role === "staff" ? "account manager" : memberRole === "viewer" ? "account viewer (read only)" : "account admin";

export function DashboardHeader({ name, role, memberRole }: { name: string; role: "staff" | "member"; memberRole?: "admin" | "viewer" }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const tz = useSearchParams().get("tz");
  const [open, setOpen] = useState(false);
  const linksId = useId();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => router.replace("/sign-in") }));
  // A screen chosen from the menu closes it.
  useEffect(() => {
    if (pathname) setOpen(false);
  }, [pathname]);
  const words = roleWords(role, memberRole);
  return (
    <header className="dash-header">
      <Link href="/" className="brand">
        Tally
      </Link>
      <nav className="dash-nav" aria-label="Dashboard">
        <button type="button" className="chip nav-toggle" aria-expanded={open} aria-controls={linksId} onClick={() => setOpen(!open)}>
          Menu
        </button>
        <div id={linksId} className={open ? "nav-links open" : "nav-links"}>
          {SCREENS.map(([href, label]) => (
            <Link key={href} href={tz ? `${href}?tz=${encodeURIComponent(tz)}` : href} aria-current={pathname === href ? "page" : undefined}>
              {label}
            </Link>
          ))}
        </div>
      </nav>
      <div className="dash-tools">
        <SavedViews />
        <ZonePicker />
        {/* On a phone the name gives way before the role does. */}
        <span className="muted dash-who" title={`${name} · ${words}`}>
          <span className="dash-name">{name}</span>
          <span aria-hidden="true">·</span>
          <span className="dash-role">{words}</span>
        </span>
        <button type="button" className="link-button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </div>
    </header>
  );
}
