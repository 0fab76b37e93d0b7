// Which report rows an account may read (docs/interface-decisions.md §1): an advertiser its own campaigns' rows on
// every publisher; a publisher the rows of its own inventory; a network its own and its
// sub-publishers'. Everything else is as if it did not exist.
import { type Actor, assertMayAccess, isOperator } from "@/server/accounts/actor";
import type { ApiKeyCaller } from "@/server/accounts/api-keys";
import type { Viewer } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { pgPool } from "@/server/db/pg-pool";
import type { ReportScope } from "@/server/store/report-query";
import { accountKindOf, publisherIdsOf } from "./report-scope.sql";

/** Who asks for a report: an account (by API key or a member's session), or staff, who see every account. */
export type ReportCaller = Pick<ApiKeyCaller, "accountId" | "accountKind"> | { accountId: null; accountKind: "staff" };

export const STAFF_CALLER: ReportCaller = { accountId: null, accountKind: "staff" };

export async function reportScope(caller: ReportCaller): Promise<ReportScope> {
  if (caller.accountKind === "staff") return { advertiserId: null, publisherIds: null, targetedPublisherIds: null };
  // Every other scope is one account's: without its id it is no rows, never every row.
  if (typeof caller.accountId !== "string" || caller.accountId === "") throw new TallyError("not_found", "no such account");
  if (caller.accountKind === "advertiser") return { advertiserId: caller.accountId, publisherIds: null, targetedPublisherIds: null };
  const { rows } = await pgPool().query<{ publisher_ids: string[]; network_id: string | null }>(publisherIdsOf(caller.accountId));
  const publisherIds = rows[0]?.publisher_ids ?? [caller.accountId];
  const networkId = rows[0]?.network_id ?? null;
  return { advertiserId: null, publisherIds, targetedPublisherIds: networkId ? [...publisherIds, networkId] : publisherIds };
}

/** An account as a report caller (its kind decides its scope), or null for an unknown id. */
export async function accountCaller(accountId: string): Promise<ReportCaller | null> {
  const { rows } = await pgPool().query<{ kind: ApiKeyCaller["accountKind"] }>(accountKindOf(accountId));
  return rows[0] ? { accountId, accountKind: rows[0].kind } : null;
}

/**
 * Whom a dashboard viewer reads reports as: staff every account, a member their own account; null
 * (nothing) for a member without an account, or whose account no longer exists.
 */
export async function viewerCaller(viewer: Viewer): Promise<ReportCaller | null> {
  if (viewer.role === "staff") return STAFF_CALLER;
  if (viewer.role !== "member" || typeof viewer.accountId !== "string" || viewer.accountId === "") return null;
  return accountCaller(viewer.accountId);
}

/**
 * The report rows the actor reads: those of `accountId` when the actor may see that account, else
 * the actor's own (every account for staff and the operator, a member's account). An account the
 * actor may not see, or one that no longer exists, is "no such account".
 */
export async function reportScopeOf({ actor, accountId }: { actor: Actor; accountId?: string }): Promise<ReportScope> {
  if (accountId !== undefined) assertMayAccess(actor, accountId, "account");
  const caller = accountId !== undefined ? await accountCaller(accountId) : isOperator(actor) ? STAFF_CALLER : await viewerCaller(actor);
  if (!caller) throw new TallyError("not_found", "no such account");
  return reportScope(caller);
}

/** The rows an account may receive: an advertiser its own campaigns', a publisher its inventory's, a network its own and its sub-publishers'. */
export async function scopeOfAccount(accountId: string): Promise<ReportScope> {
  const caller = await accountCaller(accountId);
  if (!caller) throw new Error(`account ${accountId} no longer exists`);
  return reportScope(caller);
}
