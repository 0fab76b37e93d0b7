"use client";
// Whether the signed-in user may change what the dashboard shows: staff and an account's admins
// may, its viewers read and download only (src/server/accounts/actor.ts holds the rule the server
// enforces; this only spares a viewer forms whose every submission would be refused).
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-client";

/**
 * Whether the user may change the objects of `accountId` (or of their own account, when none is
 * given): a publisher's admin sees the campaigns on its site but may not change them. Undefined
 * (falsy) until the user is known, so a viewer never sees a change form flash up.
 */
export function useMayChange(accountId?: string): boolean | undefined {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const viewer = me.data;
  if (!viewer) return undefined;
  if (viewer.role === "staff") return true;
  return viewer.memberRole === "admin" && (accountId === undefined || accountId === viewer.accountId);
}

/** Said where a viewer would have found a form: why it is not there, and whom to ask. */
export function ReadOnlyNote({ what }: { what: string }) {
  return <p className="muted read-only-note">You can read {what} but not change it: your role in this account is viewer. Ask one of its admins.</p>;
}
