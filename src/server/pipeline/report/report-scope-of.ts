import { type Actor, assertMayAccess, isOperator } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { accountCaller, type ReportScope, reportScope, STAFF_CALLER, viewerCaller } from "./report-scope";

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
