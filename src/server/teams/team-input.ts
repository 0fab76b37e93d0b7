// The payloads of an account's team: inviting, accepting an invitation, a member's role, removing
// a user. One schema each, shared by the dashboard's forms, its procedures and the CLI.
import { z } from "zod";
import { MEMBER_ROLES, ZPassword } from "@/server/accounts/user-input";

export const ZMemberRole = z.enum(MEMBER_ROLES);

/** An e-mail as users' are stored: trimmed and lower case, then checked. */
const ZEmail = z.string().trim().toLowerCase().max(320).pipe(z.email("must be an e-mail address"));

export const ZInviteInput = z.object({
  accountId: z.string().min(1),
  email: ZEmail,
  role: ZMemberRole,
});
export type TInviteInput = z.input<typeof ZInviteInput>;

/** An invitation's token: 32 random bytes in base64url, as the link carries it. */
export const ZInvitationToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "is not an invitation token");

export const ZAcceptInvitationInput = z
  .object({
    token: z.string().min(1).max(200),
    name: z.string().trim().min(1, "is required").max(200),
    password: ZPassword,
    passwordAgain: z.string().max(200),
  })
  .refine((input) => input.password === input.passwordAgain, { message: "does not match the password", path: ["passwordAgain"] });
export type TAcceptInvitationInput = z.input<typeof ZAcceptInvitationInput>;

export const ZSetMemberRoleInput = z.object({ userId: z.string().min(1), role: ZMemberRole });
export const ZUserInput = z.object({ userId: z.string().min(1) });
export const ZInvitationInput = z.object({ invitationId: z.string().min(1) });
export const ZTeamInput = z.object({ accountId: z.string().min(1) });

export const ZCreateStaffInput = z.object({
  email: ZEmail,
  name: z.string().trim().min(1).max(200),
  password: ZPassword,
});
