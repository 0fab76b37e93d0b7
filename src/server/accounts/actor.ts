// Who a domain function acts for: a dashboard viewer (sessions.ts), or the operator, Tally's own
// callers (the CLIs, the seed, jobs, fixtures), who may act on every account as staff do. The
// rules of who may see and change what live here and in the domain functions that call these,
// never in a transport: the dashboard's procedures, a CLI and a future API meet the same ones.
// An account the actor may not see answers as one that does not exist ("no such ..."), so an id
// forged in a browser tells a member nothing of other accounts. The functions that make things
// for the seed, fixtures and CLIs (accounts, products, campaigns, ads, keys, destinations) act as
// the operator when given no actor; the others need one.
import { TallyError } from "@/server/core/errors";
import { canAccess, type Viewer, wholeViewer } from "./sessions";

export interface Operator {
  role: "operator";
}
export type Actor = Viewer | Operator;

export const OPERATOR: Operator = Object.freeze({ role: "operator" });

/**
 * The operator is this one object, not any object that says so: a viewer built by another path
 * that claims the role is a viewer that is not whole, and sees nothing.
 */
export const isOperator = (actor: Actor): actor is Operator => actor === OPERATOR;

/** The actor's view of every account: staff and the operator see all of them. */
export const seesEveryAccount = (actor: Actor): boolean => isOperator(actor) || wholeViewer(actor)?.role === "staff";

/** Whether the actor may see and manage an account's objects; a member that is not whole (no account) sees nothing. */
export function mayAccess(actor: Actor, accountId: string): boolean {
  if (isOperator(actor)) return true;
  const viewer = wholeViewer(actor);
  return viewer !== null && canAccess(viewer, accountId);
}

/** Throws not_found ("no such <what>") unless the actor may see the account. */
export function assertMayAccess(actor: Actor, accountId: string, what = "account"): void {
  if (!mayAccess(actor, accountId)) throw new TallyError("not_found", `no such ${what}`);
}

/**
 * Whether the actor may change an account's objects (campaigns, ads, budgets, sites, keys,
 * destinations): whoever may see it, but a member who is the account's viewer.
 */
export function mayChange(actor: Actor, accountId: string): boolean {
  if (isOperator(actor)) return true;
  const viewer = wholeViewer(actor);
  if (viewer === null || !canAccess(viewer, accountId)) return false;
  return viewer.role === "staff" || viewer.memberRole === "admin";
}

/**
 * Throws not_found ("no such <what>") unless the actor may see the account, then forbidden unless
 * it may change it: a viewer learns nothing new of other accounts, and is told plainly that its
 * own is read-only. Every domain function that changes an account's objects calls it.
 */
export function assertMayChange(actor: Actor, accountId: string, what = "account"): void {
  assertMayAccess(actor, accountId, what);
  if (!mayChange(actor, accountId)) throw new TallyError("forbidden", "viewers of an account may not change it; ask one of its admins");
}

/**
 * Throws forbidden unless the actor is an account manager (staff) or the operator: creating
 * accounts, moving money into wallets and deciding whose SKU it is are theirs alone.
 */
export function assertAccountManager(actor: Actor): void {
  if (!seesEveryAccount(actor)) throw new TallyError("forbidden", "for account managers only");
}

/** The accounts whose objects the actor's listings hold: null for every account (staff, the operator), else a member's own. */
export function accountsInView(actor: Actor): string[] | null {
  if (isOperator(actor)) return null;
  const viewer = wholeViewer(actor);
  if (viewer?.role === "staff") return null;
  // A member that is not whole has no account, and sees none: never "every account".
  return viewer ? [viewer.accountId] : [];
}
