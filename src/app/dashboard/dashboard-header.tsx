"use client";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTRPC } from "../trpc-client";
import { SavedViews } from "./saved-views";

export function DashboardHeader({ name, role, memberRole }: { name: string; role: "staff" | "member"; memberRole?: "admin" | "viewer" }) {
  const trpc = useTRPC();
  const router = useRouter();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => router.replace("/sign-in") }));
  return (
    <nav className="top" aria-label="Dashboard">
      <Link href="/" className="brand">
        Tally
      </Link>
      <Link href="/dashboard">Overview</Link>
      <Link href="/dashboard/campaigns">Campaigns</Link>
      <Link href="/dashboard/accounts">Accounts</Link>
      <Link href="/dashboard/api-keys">API keys</Link>
      <Link href="/dashboard/exports">Exports</Link>
      <Link href="/dashboard/invalid-traffic">Invalid traffic</Link>
      <Link href="/dashboard/activity">Activity</Link>
      <Link href="/dashboard/settings">Settings</Link>
      <span className="spacer" />
      <SavedViews />
      <span className="muted">
        {name} · {role === "staff" ? "account manager" : memberRole === "viewer" ? "account viewer (read only)" : "account user"}
      </span>
      <button type="button" className="link-button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        Sign out
      </button>
    </nav>
  );
}
