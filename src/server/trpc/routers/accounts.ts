// Accounts: every one for staff, their own for a member. Creating accounts and topping up
// wallets is for account managers; budgets and sites for the account's own users too.
import { z } from "zod";
import { ZAddSiteInput, ZCreateAccountInput, ZDailyBudgetInput, ZTopUpInput } from "@/server/accounts/account-input";
import { createAccount } from "@/server/accounts/create-account";
import { getAccount } from "@/server/accounts/get-account";
import { landingAccount } from "@/server/accounts/landing-account";
import { listAccounts } from "@/server/accounts/list-accounts";
import { addSite, setDailyBudget, topUpWallet } from "@/server/accounts/manage-account";
import { router, signedInProcedure, staffProcedure } from "../trpc";

export const accountsRouter = router({
  list: signedInProcedure.query(({ ctx }) => listAccounts({ actor: ctx.viewer })),

  /** The account a screen about one account opens on when its address names none. */
  landing: signedInProcedure.query(({ ctx }) => landingAccount({ actor: ctx.viewer })),

  get: signedInProcedure.input(z.object({ id: z.string().min(1) })).query(({ ctx, input }) => getAccount({ actor: ctx.viewer, id: input.id })),

  create: staffProcedure.input(ZCreateAccountInput).mutation(async ({ ctx, input }) => {
    const created = await createAccount({ ...input, actor: ctx.viewer });
    return { id: created.id };
  }),

  topUp: staffProcedure
    .input(ZTopUpInput)
    .mutation(async ({ ctx, input }) => ({ walletBalance: await topUpWallet({ actor: ctx.viewer, accountId: input.accountId, amount: input.amount }) })),

  setDailyBudget: signedInProcedure.input(ZDailyBudgetInput).mutation(async ({ ctx, input }) => {
    await setDailyBudget({ actor: ctx.viewer, ...input });
    return { dailyBudget: input.dailyBudget };
  }),

  addSite: signedInProcedure.input(ZAddSiteInput).mutation(async ({ ctx, input }) => {
    const site = await addSite({ actor: ctx.viewer, ...input });
    return { id: site.id, name: site.name, domain: site.domain };
  }),
});
