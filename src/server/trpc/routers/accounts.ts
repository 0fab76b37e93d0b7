// Accounts: every one for staff, their own for a member. Creating accounts and topping up
// wallets is for account managers; budgets and sites for the account's own users too, who read
// the wallet's ledger as staff do.
import { z } from "zod";
import { ZAddSiteInput, ZCreateAccountInput, ZDailyBudgetInput, ZTimeZoneInput, ZTopUpInput } from "@/server/accounts/account-input";
import { setAccountTimeZone, timeZoneChoices } from "@/server/accounts/account-time-zone";
import { createAccount } from "@/server/accounts/create-account";
import { getAccount } from "@/server/accounts/get-account";
import { landingAccount } from "@/server/accounts/landing-account";
import { listAccounts } from "@/server/accounts/list-accounts";
import { addSite, setDailyBudget, topUpWallet } from "@/server/accounts/manage-account";
import { walletLedger } from "@/server/accounts/wallet-ledger";
import { ZRangeInput } from "../range-input";
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

  topUp: staffProcedure.input(ZTopUpInput).mutation(async ({ ctx, input }) => ({ walletBalance: await topUpWallet({ actor: ctx.viewer, ...input }) })),

  /** The wallet's top-ups and daily charges over a range, newest first: staff and the account's own members. */
  walletLedger: signedInProcedure
    .input(z.object({ accountId: z.string().min(1) }).and(ZRangeInput))
    .query(({ ctx, input }) => walletLedger({ actor: ctx.viewer, ...input })),

  setDailyBudget: signedInProcedure.input(ZDailyBudgetInput).mutation(async ({ ctx, input }) => {
    await setDailyBudget({ actor: ctx.viewer, ...input });
    return { dailyBudget: input.dailyBudget };
  }),

  /** The zone the account reads, budgets and exports in (docs/time-zones.md): staff and the account's admins. */
  setTimeZone: signedInProcedure.input(ZTimeZoneInput).mutation(({ ctx, input }) => setAccountTimeZone({ actor: ctx.viewer, ...input })),

  /** The zones the time zone picker offers, UTC first, each with its offset now. */
  timeZones: signedInProcedure.query(() => timeZoneChoices()),

  addSite: signedInProcedure.input(ZAddSiteInput).mutation(async ({ ctx, input }) => {
    const site = await addSite({ actor: ctx.viewer, ...input });
    return { id: site.id, name: site.name, domain: site.domain };
  }),
});
