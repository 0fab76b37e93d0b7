// Invitations to an account's team (docs/teams.md). An account manager (staff, or the operator
// through `npm run users`) or one of the account's own admins invites an e-mail to an
// advertiser's, a publisher's or a network's account as an admin or a viewer (team-rules.ts). The link carries 32 random bytes; only their SHA-256 is kept,
// so a database read yields no usable link. A link works once, for 7 days, unless revoked; every
// way it can fail (unknown, used, revoked, expired) answers the same "invalid or expired", so
// the answer tells a guesser nothing. Each change writes its activity entry in its transaction.
import { createHash, randomBytes } from "node:crypto";
import { env } from "@/env";
import { type Actor, assertMayAccess, isOperator, mayAccess } from "@/server/accounts/actor";
import { newUserRow } from "@/server/accounts/create-user";
import { type MemberRole, startSession, type Viewer, viewerOfUser } from "@/server/accounts/sessions";
import { recordActivity } from "@/server/activity/activity-log";
import { DAY_MS } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { mailsInvitations, sendInvitationMail } from "./invitation-mail";
import { type TAcceptInvitationInput, type TInviteInput, ZAcceptInvitationInput, ZInvitationToken, ZInviteInput } from "./team-input";
import { assertMayManageTeam } from "./team-rules";

export const INVITATION_DAYS = 7;
/** Where a link starts when neither TALLY_PUBLIC_URL nor a request says: `npm run dev`'s address. */
const LOCAL_ORIGIN = "http://localhost:3000";
// Holding the transaction open while the SMTP server answers: a refused e-mail creates nothing.
const MAILING_TRANSACTION_MS = 30_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
const invalidLink = () => new TallyError("not_found", "this invitation link is invalid or has expired; ask whoever invited you for a new one");
const actorName = (actor: Actor) => (isOperator(actor) ? "Tally's operator" : `${actor.name} (${actor.email})`);

export interface InvitationSummary {
  id: string;
  accountId: string;
  email: string;
  role: MemberRole;
  createdAt: Date;
  expiresAt: Date;
}
const SUMMARY = { id: true, accountId: true, email: true, role: true, createdAt: true, expiresAt: true } as const;

/**
 * The invitation link of a token: the base address a CLI was given (`--base-url`), else
 * TALLY_PUBLIC_URL, else the origin the request came to, else the local address.
 */
export function invitationLink(token: string, where: { baseUrl?: string | null; origin?: string | null } = {}): string {
  const base = where.baseUrl ?? env().TALLY_PUBLIC_URL ?? where.origin ?? LOCAL_ORIGIN;
  return `${base.replace(/\/+$/, "")}/invite/${token}`;
}

/** Where an invitation stands, as a `where` of open ones: neither accepted nor revoked nor expired. */
const openAt = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

/**
 * Invites an e-mail to an account. An e-mail that already has a user, or an open invitation
 * anywhere, is refused with a plain reason (revoke the open one to send a new link). With SMTP_URL
 * the link is mailed, and a refused e-mail creates nothing; `link` is returned either way, for the
 * CLI, and `mailed` says whether the dashboard may show it.
 */
export async function inviteUser(
  input: TInviteInput & { actor: Actor; origin?: string | null; baseUrl?: string | null },
  now = new Date(),
): Promise<{ invitation: InvitationSummary; link: string; mailed: boolean }> {
  const data = ZInviteInput.parse(input);
  assertMayManageTeam(input.actor, data.accountId, "account");
  const account = await db.account.findUnique({ where: { id: data.accountId }, select: { id: true, name: true } });
  if (!account) throw new TallyError("not_found", "no such account");
  const token = randomBytes(32).toString("base64url");
  const link = invitationLink(token, input);
  const mailed = mailsInvitations();
  const invitation = await db.$transaction(
    async (tx) => {
      if (await tx.user.findUnique({ where: { email: data.email }, select: { id: true } })) {
        throw new TallyError("bad_request", `${data.email} already has a Tally user; change their role or remove them instead`);
      }
      const open = await tx.userInvitation.findFirst({ where: { email: data.email, ...openAt(now) }, select: { accountId: true } });
      // Another account's invitation is not named to a member of this one.
      const where = mayAccess(input.actor, open?.accountId ?? "") ? ` (${open?.accountId})` : "";
      if (open) throw new TallyError("bad_request", `${data.email} already has an open invitation${where}; revoke it to send a new link`);
      const created = await tx.userInvitation.create({
        data: {
          id: newId("inv"),
          accountId: account.id,
          email: data.email,
          role: data.role,
          tokenHash: hashToken(token),
          invitedBy: isOperator(input.actor) ? null : input.actor.userId,
          createdAt: now,
          expiresAt: new Date(now.getTime() + INVITATION_DAYS * DAY_MS),
        },
        select: SUMMARY,
      });
      await recordActivity(tx, input.actor, {
        action: "user.invited",
        subject: `invitation of ${data.email} to ${account.name}`,
        accountId: account.id,
        before: null,
        after: { email: data.email, role: data.role, expiresAt: created.expiresAt.toISOString() },
      });
      if (mailed) {
        await sendInvitationMail({
          to: data.email,
          accountName: account.name,
          role: data.role,
          link,
          expiresAt: created.expiresAt,
          invitedBy: actorName(input.actor),
        }).catch((error: unknown) => {
          throw new TallyError(
            "unavailable",
            `the invitation e-mail could not be sent (${error instanceof Error ? error.message : String(error)}); nothing was created`,
          );
        });
      }
      return created;
    },
    { timeout: MAILING_TRANSACTION_MS },
  );
  return { invitation, link, mailed };
}

/**
 * Revokes an open invitation of an account: its link stops at once. A used, revoked or expired
 * one is refused, and so is another account's, as if it did not exist.
 */
export async function revokeInvitation({ actor, invitationId }: { actor: Actor; invitationId: string }, now = new Date()): Promise<InvitationSummary> {
  return db.$transaction(async (tx) => {
    const found = await tx.userInvitation.findFirst({ where: { id: invitationId, ...openAt(now) }, select: { accountId: true } });
    if (!found) throw new TallyError("not_found", "no such open invitation");
    assertMayManageTeam(actor, found.accountId, "open invitation");
    const revoked = await tx.userInvitation.updateMany({ where: { id: invitationId, ...openAt(now) }, data: { revokedAt: now } });
    if (revoked.count === 0) throw new TallyError("not_found", "no such open invitation");
    const invitation = await tx.userInvitation.findUniqueOrThrow({ where: { id: invitationId }, select: SUMMARY });
    await recordActivity(tx, actor, {
      action: "user.invitation.revoked",
      subject: `invitation of ${invitation.email}`,
      accountId: invitation.accountId,
      before: { email: invitation.email, role: invitation.role },
      after: null,
    });
    return invitation;
  });
}

/** The open invitations of an account the actor may see, newest first. */
export async function listOpenInvitations({ actor, accountId }: { actor: Actor; accountId: string }, now = new Date()): Promise<InvitationSummary[]> {
  assertMayAccess(actor, accountId, "account");
  return db.userInvitation.findMany({ where: { accountId, ...openAt(now) }, orderBy: { createdAt: "desc" }, select: SUMMARY });
}

/** An open invitation by its token, or invalidLink: what the invitation page shows before the form. */
async function openInvitation(token: string, now: Date) {
  if (!ZInvitationToken.safeParse(token).success) throw invalidLink();
  const invitation = await db.userInvitation.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { ...SUMMARY, acceptedAt: true, revokedAt: true, account: { select: { name: true, kind: true } } },
  });
  if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) throw invalidLink();
  return invitation;
}

/** What the invitation page shows: the account's name and kind, the e-mail and the role. */
export async function invitationPreview(token: string, now = new Date()) {
  const invitation = await openInvitation(token, now);
  return {
    accountName: invitation.account.name,
    accountKind: invitation.account.kind,
    email: invitation.email,
    role: invitation.role,
    expiresAt: invitation.expiresAt,
  };
}

/**
 * Accepts an open invitation: the user is created with the invitation's e-mail, account and role,
 * the invitation is used, and the user is signed in (the session token is for the cookie). The
 * invitation is taken by a conditional update, so one link makes one user however many times it
 * is sent at once; any failure leaves nothing behind.
 */
export async function acceptInvitation(input: TAcceptInvitationInput, now = new Date()): Promise<{ token: string; expiresAt: Date; viewer: Viewer }> {
  const data = ZAcceptInvitationInput.parse(input);
  const invitation = await openInvitation(data.token, now);
  const row = await newUserRow({
    email: invitation.email,
    name: data.name,
    password: data.password,
    role: "member",
    accountId: invitation.accountId,
    memberRole: invitation.role,
  });
  const user = await db.$transaction(async (tx) => {
    const taken = await tx.userInvitation.updateMany({ where: { id: invitation.id, ...openAt(now) }, data: { acceptedAt: now } });
    if (taken.count === 0 || (await tx.user.count({ where: { email: invitation.email } })) > 0) throw invalidLink();
    const created = await tx.user.create({ data: row });
    const viewer = viewerOfUser(created);
    if (!viewer) throw invalidLink();
    await recordActivity(tx, viewer, {
      action: "user.joined",
      subject: `user ${created.email}`,
      accountId: invitation.accountId,
      before: null,
      after: { userId: created.id, email: created.email, name: created.name, role: invitation.role },
    });
    return viewer;
  });
  return startSession(user);
}
