// OAuth clients of an account: created and rotated (the secret shown in that one answer), listed
// (never a secret), revoked.
import { z } from "zod";
import { createOauthClient, listOauthClients, revokeOauthClient, rotateOauthClientSecret, ZCreateOauthClientInput } from "@/server/accounts/oauth-clients";
import { router, signedInProcedure } from "../trpc";

const account = z.object({ accountId: z.string().min(1) });
const client = account.extend({ clientId: z.string().min(1) });

export const oauthClientsRouter = router({
  list: signedInProcedure.input(account).query(({ ctx, input }) => listOauthClients({ actor: ctx.viewer, accountId: input.accountId })),
  /** The answer holds the secret itself: the only time it exists in clear. */
  create: signedInProcedure.input(ZCreateOauthClientInput).mutation(({ ctx, input }) => createOauthClient({ ...input, actor: ctx.viewer })),
  /** The answer holds the new secret, as create's does. */
  rotate: signedInProcedure.input(client).mutation(({ ctx, input }) => rotateOauthClientSecret({ ...input, actor: ctx.viewer })),
  revoke: signedInProcedure.input(client).mutation(({ ctx, input }) => revokeOauthClient({ ...input, actor: ctx.viewer })),
});
