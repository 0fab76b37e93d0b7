// An account's money and places: wallet top-ups (account managers only; each kept in the wallet's
// ledger too), the advertiser's daily budget and a publisher's sites (the account's own users
// too). Each is logged in its transaction.

import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { fromMicros, MAX_WALLET_BALANCE, toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type Actor, assertAccountManager, assertMayChange } from "./actor";
import { addToWallet, lockAccountSettings } from "./manage-account.sql";
import { recordTopUp } from "./wallet-ledger";

/**
 * Adds to an advertiser's wallet in one statement (beacons may be charging it at the same time),
 * unless the wallet would then hold more than MAX_WALLET_BALANCE, and keeps the top-up in the
 * wallet's ledger (wallet-ledger.ts) and the activity log in the same transaction. Money moves by
 * account managers only. `requestId` names one press of the dashboard's button: sent again (a
 * double click, a retry after a lost answer) it answers the balance that top-up left and adds
 * nothing; the account's row, locked first, makes two such requests take turns.
 */
export async function topUpWallet({
  actor,
  accountId,
  amount,
  requestId = newId("req"),
}: {
  actor: Actor;
  accountId: string;
  amount: number;
  requestId?: string;
}): Promise<number> {
  assertAccountManager(actor);
  const ceiling = toMicros(MAX_WALLET_BALANCE);
  const micros = toMicros(amount);
  return db.$transaction(async (tx) => {
    const [account] = await lockAccountSettings(tx, accountId);
    const earlier = await tx.walletTopUp.findUnique({ where: { accountId_requestId: { accountId, requestId } } });
    if (earlier) {
      if (earlier.amountMicros !== micros)
        throw TallyError.field("amount", `differs from the top-up this request already made (${fromMicros(earlier.amountMicros)})`);
      return fromMicros(earlier.balanceAfterMicros);
    }
    const [row] = await addToWallet(tx, accountId, micros, ceiling);
    if (!row) throw new TallyError("bad_request", "only advertisers have a wallet");
    if (!row.topped_up) {
      throw TallyError.field(
        "amount",
        `is too much: a wallet may hold at most ${MAX_WALLET_BALANCE.toLocaleString("en")}; it holds ${fromMicros(row.wallet_balance_micros).toLocaleString("en")}`,
      );
    }
    await recordTopUp(tx, actor, { accountId, requestId, amountMicros: micros, balanceAfterMicros: row.wallet_balance_micros });
    await recordActivity(tx, actor, {
      action: "account.wallet.topped_up",
      subject: `wallet of ${account?.name ?? accountId}`,
      accountId,
      // The balance the top-up found is the one it left less the amount: reading it first would
      // race the beacons charging the wallet.
      before: { walletBalance: fromMicros(row.wallet_balance_micros - micros) },
      after: { walletBalance: fromMicros(row.wallet_balance_micros) },
    });
    return fromMicros(row.wallet_balance_micros);
  });
}

export async function setDailyBudget({ actor, accountId, dailyBudget }: { actor: Actor; accountId: string; dailyBudget: number | null }): Promise<void> {
  assertMayChange(actor, accountId, "account");
  const micros = dailyBudget === null ? null : toMicros(dailyBudget);
  await db.$transaction(async (tx) => {
    const [account] = await lockAccountSettings(tx, accountId);
    if (account?.kind !== "advertiser") throw new TallyError("bad_request", "only advertisers have a daily budget");
    if (account.daily_budget_micros === micros) return;
    await tx.account.update({ where: { id: accountId }, data: { dailyBudgetMicros: micros } });
    await recordActivity(tx, actor, {
      action: "account.daily_budget.set",
      subject: `daily budget of ${account.name}`,
      accountId,
      before: { dailyBudget: account.daily_budget_micros === null ? null : fromMicros(account.daily_budget_micros) },
      after: { dailyBudget: micros === null ? null : fromMicros(micros) },
    });
  });
}

export async function addSite({ actor, accountId, name, domain }: { actor: Actor; accountId: string; name: string; domain?: string }) {
  assertMayChange(actor, accountId, "account");
  const account = await db.account.findUnique({ where: { id: accountId }, select: { kind: true } });
  if (!account || account.kind === "advertiser") throw new TallyError("bad_request", "sites belong to publishers and networks");
  const exists = await db.site.count({ where: { publisherId: accountId, name } });
  if (exists) throw new TallyError("bad_request", `the account already has a site named ${name}`);
  return db.$transaction(async (tx) => {
    const site = await tx.site.create({ data: { id: newId("site"), publisherId: accountId, name, domain: domain || null } });
    await recordActivity(tx, actor, {
      action: "account.site.added",
      subject: `site ${name} (${site.id})`,
      accountId,
      before: null,
      after: { name, domain: site.domain },
    });
    return site;
  });
}
