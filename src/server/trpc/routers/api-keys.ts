// Report API keys of an account: created (the key shown once), listed (a prefix only), revoked.
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey, ZCreateApiKeyInput } from "@/server/accounts/api-keys";
import { assertAccount, router, signedInProcedure } from "../trpc";

const account = z.object({ accountId: z.string().min(1) });

export const apiKeysRouter = router({
  list: signedInProcedure.input(account).query(({ ctx, input }) => {
    assertAccount(ctx.viewer, input.accountId, "account");
    return listApiKeys(input.accountId);
  }),
  /** The answer holds the key itself: the only time it exists in clear. */
  create: signedInProcedure.input(ZCreateApiKeyInput).mutation(({ ctx, input }) => {
    assertAccount(ctx.viewer, input.accountId, "account");
    return createApiKey(input);
  }),
  revoke: signedInProcedure.input(account.extend({ keyId: z.string().min(1) })).mutation(({ ctx, input }) => {
    assertAccount(ctx.viewer, input.accountId, "account");
    return revokeApiKey({ keyId: input.keyId, accountId: input.accountId });
  }),
});
