// Who may change an account's team: staff and the operator for every account, and the account's
// own admins for theirs (docs/teams.md). A member asking about another account's team, user or
// invitation is answered as if it did not exist; a viewer of the account is told who may change
// it. An admin may not leave the account without an admin: the last one is neither demoted nor
// removed by a member (staff, who manage every account, still may). Every function of
// invitations.ts and team-members.ts that changes a team calls these first.
import { type Actor, isOperator, mayAccess, seesEveryAccount } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import type { Prisma } from "@/server/db/generated/client";
import { lockTeamOf } from "./team-lock.sql";

/** Whether the actor may change the account's team: staff, the operator, or an admin of that account. */
export function mayManageTeam(actor: Actor, accountId: string): boolean {
  if (seesEveryAccount(actor)) return true;
  if (isOperator(actor) || !mayAccess(actor, accountId)) return false;
  return actor.role === "member" && actor.memberRole === "admin";
}

/** Throws not_found ("no such <what>") unless the actor sees the account, then forbidden unless it may change its team. */
export function assertMayManageTeam(actor: Actor, accountId: string, what: string): void {
  if (!mayAccess(actor, accountId)) throw new TallyError("not_found", `no such ${what}`);
  if (!mayManageTeam(actor, accountId)) {
    throw new TallyError("forbidden", "only the account's admins or Tally staff change its team; ask one of its admins");
  }
}

/**
 * Refuses a member's change that would leave the account with no admin: demoting or removing its
 * last one (themselves, since they are an admin). Takes the account's team lock first, so two such
 * changes at once are counted one after the other.
 */
export async function assertKeepsAnAdmin(
  tx: Prisma.TransactionClient,
  actor: Actor,
  user: { id: string; accountId: string; memberRole: string | null },
): Promise<void> {
  await lockTeamOf(tx, user.accountId);
  if (seesEveryAccount(actor) || user.memberRole !== "admin") return;
  const others = await tx.user.count({ where: { accountId: user.accountId, role: "member", memberRole: "admin", id: { not: user.id } } });
  if (others === 0) {
    throw new TallyError("bad_request", "the account would have no admin left: make another member an admin first, or ask Tally staff");
  }
}
