// Report API keys of an account: created (the key shown once), listed (a prefix only), revoked.
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey, ZCreateApiKeyInput } from "@/server/accounts/api-keys";
import { router, signedInProcedure } from "../trpc";

const account = z.object({ accountId: z.string().min(1) });

export const apiKeysRouter = router({
  list: signedInProcedure.input(account).query(({ ctx, input }) => listApiKeys({ actor: ctx.viewer, accountId: input.accountId })),
  /** The answer holds the key itself: the only time it exists in clear. */
  create: signedInProcedure.input(ZCreateApiKeyInput).mutation(({ ctx, input }) => createApiKey({ ...input, actor: ctx.viewer })),
  revoke: signedInProcedure.input(account.extend({ keyId: z.string().min(1) })).mutation(({ ctx, input }) => revokeApiKey({ ...input, actor: ctx.viewer })),
});
