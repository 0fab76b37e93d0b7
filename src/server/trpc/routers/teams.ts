// An account's team: its users and open invitations (whoever may see the account), and the
// changes staff and the account's own admins make (invite, revoke, set a role, remove; the rules
// are src/server/teams/team-rules.ts); accepting an invitation needs no session and signs the new
// user in. Each procedure calls one function of src/server/teams/.
import { acceptInvitation, inviteUser, revokeInvitation } from "@/server/teams/invitations";
import { ZAcceptInvitationInput, ZInvitationInput, ZInviteInput, ZSetMemberRoleInput, ZTeamInput, ZUserInput } from "@/server/teams/team-input";
import { listTeam, removeUser, setMemberRole } from "@/server/teams/team-members";
import { publicProcedure, router, signedInProcedure } from "../trpc";

export const teamsRouter = router({
  list: signedInProcedure.input(ZTeamInput).query(({ ctx, input }) => listTeam({ actor: ctx.viewer, accountId: input.accountId })),

  /** The link comes back only when it was not mailed: the one time it is shown. */
  invite: signedInProcedure.input(ZInviteInput).mutation(async ({ ctx, input }) => {
    const { invitation, link, mailed } = await inviteUser({ ...input, actor: ctx.viewer, origin: ctx.origin });
    return { invitation, mailed, link: mailed ? null : link };
  }),

  revokeInvitation: signedInProcedure.input(ZInvitationInput).mutation(({ ctx, input }) => revokeInvitation({ actor: ctx.viewer, ...input })),

  setRole: signedInProcedure.input(ZSetMemberRoleInput).mutation(({ ctx, input }) => setMemberRole({ actor: ctx.viewer, ...input })),

  remove: signedInProcedure.input(ZUserInput).mutation(({ ctx, input }) => removeUser({ actor: ctx.viewer, ...input })),

  accept: publicProcedure.input(ZAcceptInvitationInput).mutation(async ({ ctx, input }) => {
    const { token, expiresAt, viewer } = await acceptInvitation(input);
    ctx.setSessionCookie?.(token, expiresAt);
    return viewer;
  }),
});
