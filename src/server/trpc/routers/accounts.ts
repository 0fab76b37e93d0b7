// Accounts: every one for staff, their own for a member. Creating accounts and topping up
// wallets is for account managers; budgets and sites for the account's own users too.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { ZAddSiteInput, ZCreateAccountInput, ZDailyBudgetInput, ZTopUpInput } from "@/server/accounts/account-input";
import { createAccount } from "@/server/accounts/create-account";
import { accountDetail, addSite, setDailyBudget, topUpWallet } from "@/server/accounts/manage-account";
import { db } from "@/server/db/client";
import { assertAccount, router, signedInProcedure, staffProcedure } from "../trpc";

export const accountsRouter = router({
  list: signedInProcedure.query(async ({ ctx }) =>
    db.account.findMany({
      where: ctx.viewer.role === "staff" ? {} : { id: ctx.viewer.accountId ?? "\u0000" },
      select: { id: true, name: true, kind: true, networkId: true, currency: true },
      orderBy: [{ kind: "asc" }, { name: "asc" }],
    }),
  ),

  get: signedInProcedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.id, "account");
    const detail = await accountDetail(input.id);
    if (!detail) throw new TRPCError({ code: "NOT_FOUND", message: "no such account" });
    return detail;
  }),

  create: staffProcedure.input(ZCreateAccountInput).mutation(async ({ input }) => {
    if (input.networkId) {
      const network = await db.account.findUnique({ where: { id: input.networkId }, select: { kind: true } });
      if (network?.kind !== "network") throw new TRPCError({ code: "BAD_REQUEST", message: "networkId must be a network account" });
    }
    const created = await createAccount({ ...input, id: undefined });
    return { id: created.id };
  }),

  topUp: staffProcedure.input(ZTopUpInput).mutation(async ({ input }) => ({ walletBalance: await topUpWallet(input.accountId, input.amount) })),

  setDailyBudget: signedInProcedure.input(ZDailyBudgetInput).mutation(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.accountId, "account");
    await setDailyBudget(input.accountId, input.dailyBudget);
    return { dailyBudget: input.dailyBudget };
  }),

  addSite: signedInProcedure.input(ZAddSiteInput).mutation(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.accountId, "account");
    const site = await addSite(input.accountId, { name: input.name, domain: input.domain });
    return { id: site.id, name: site.name, domain: site.domain };
  }),
});
