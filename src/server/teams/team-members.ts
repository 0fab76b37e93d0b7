// An account's users: listed for whoever may see the account (its viewers read their own team),
// their role in it set and the user removed by account managers and the account's own admins
// (team-rules.ts: never another account's users, never the account's last admin by a member). A role change
// holds from the user's next request (each request reads the user afresh); a removed user's
// sessions are deleted with them, so they are signed out at once. Each change writes its activity
// entry in its transaction.
import { type Actor, assertMayAccess, isOperator, seesEveryAccount } from "@/server/accounts/actor";
import { newUserRow, USER_SUMMARY } from "@/server/accounts/create-user";
import type { MemberRole } from "@/server/accounts/sessions";
import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { type InvitationSummary, listOpenInvitations } from "./invitations";
import { ZCreateStaffInput, ZMemberRole } from "./team-input";
import { assertKeepsAnAdmin, assertMayManageTeam, mayManageTeam } from "./team-rules";

export interface TeamMember {
  id: string;
  name: string;
  email: string;
  role: MemberRole;
  createdAt: Date;
}

export interface Team {
  users: TeamMember[];
  invitations: InvitationSummary[];
  /** Whether the actor may change this team (invite, revoke, set a role, remove). */
  mayManage: boolean;
  /** The names of the account's admins, who change the team besides Tally staff: what a viewer is told. */
  admins: string[];
}

/** An account's users (by name), its open invitations (newest first), and who may change them. */
export async function listTeam({ actor, accountId }: { actor: Actor; accountId: string }): Promise<Team> {
  assertMayAccess(actor, accountId, "account");
  const rows = await db.user.findMany({ where: { accountId, role: "member" }, orderBy: [{ name: "asc" }, { email: "asc" }], select: USER_SUMMARY });
  const users: TeamMember[] = rows.map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.memberRole ?? "viewer", createdAt: u.createdAt }));
  return {
    users,
    invitations: await listOpenInvitations({ actor, accountId }),
    mayManage: mayManageTeam(actor, accountId),
    admins: users.filter((user) => user.role === "admin").map((user) => user.name),
  };
}

const noSuchUser = () => new TallyError("not_found", "no such user of an account");

/**
 * Sets a member's role in their account; the same role again changes nothing and writes no entry.
 * A member may not demote the account's last admin.
 */
export async function setMemberRole({ actor, userId, role }: { actor: Actor; userId: string; role: MemberRole }): Promise<TeamMember> {
  const newRole = ZMemberRole.parse(role);
  return db.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: USER_SUMMARY });
    if (user?.role !== "member" || !user.accountId) throw noSuchUser();
    assertMayManageTeam(actor, user.accountId, "user of an account");
    if (newRole !== "admin") await assertKeepsAnAdmin(tx, actor, { ...user, accountId: user.accountId });
    if (user.memberRole !== newRole) {
      await tx.user.update({ where: { id: userId }, data: { memberRole: newRole } });
      await recordActivity(tx, actor, {
        action: "user.role.set",
        subject: `user ${user.email}`,
        accountId: user.accountId,
        before: { role: user.memberRole },
        after: { role: newRole },
      });
    }
    return { id: user.id, name: user.name, email: user.email, role: newRole, createdAt: user.createdAt };
  });
}

/**
 * Removes a user and, with them, their sessions. Account managers and the account's admins remove
 * its members (a member never the last admin); a staff user only the operator removes
 * (`npm run users -- remove`), never one staff user another, and a member never finds one.
 */
export async function removeUser({ actor, userId }: { actor: Actor; userId: string }): Promise<{ id: string; email: string }> {
  return db.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: USER_SUMMARY });
    if (!user) throw noSuchUser();
    if (user.accountId === null || user.role === "staff") {
      // A member never learns of a staff user (nor of a member without an account, which the database refuses anyway).
      if (!seesEveryAccount(actor)) throw noSuchUser();
      if (user.role === "staff" && !isOperator(actor)) throw new TallyError("forbidden", "staff users are removed by the operator (npm run users -- remove)");
    } else {
      assertMayManageTeam(actor, user.accountId, "user of an account");
      await assertKeepsAnAdmin(tx, actor, { ...user, accountId: user.accountId });
    }
    await tx.user.delete({ where: { id: userId } });
    await recordActivity(tx, actor, {
      action: "user.removed",
      subject: `user ${user.email}`,
      accountId: user.accountId,
      before: { email: user.email, name: user.name, role: user.role === "staff" ? "staff" : user.memberRole },
      after: null,
    });
    return { id: user.id, email: user.email };
  });
}

/** Creates an account manager: the operator only (`npm run users -- create-staff`). */
export async function createStaffUser({ actor, ...input }: { actor: Actor; email: string; name: string; password: string }) {
  if (!isOperator(actor)) throw new TallyError("forbidden", "staff users are created by the operator (npm run users -- create-staff)");
  const data = ZCreateStaffInput.parse(input);
  if (await db.user.findUnique({ where: { email: data.email }, select: { id: true } }))
    throw new TallyError("bad_request", `${data.email} already has a Tally user`);
  const row = await newUserRow({ ...data, role: "staff" });
  return db.$transaction(async (tx) => {
    const user = await tx.user.create({ data: row, select: USER_SUMMARY });
    await recordActivity(tx, actor, {
      action: "user.created",
      subject: `staff user ${user.email}`,
      accountId: null,
      before: null,
      after: { email: user.email, name: user.name, role: "staff" },
    });
    return user;
  });
}
